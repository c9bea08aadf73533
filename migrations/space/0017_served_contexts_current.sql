DROP INDEX `served_contexts_profile`;--> statement-breakpoint
CREATE INDEX `served_contexts_current` ON `served_contexts` (`profile_id`) WHERE superseded_at IS NULL;