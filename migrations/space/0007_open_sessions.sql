DROP INDEX `sessions_conversation_id`;--> statement-breakpoint
DROP INDEX `sessions_profile`;--> statement-breakpoint
CREATE INDEX `sessions_conversation_start` ON `sessions` (`conversation_id`,`started_at`);--> statement-breakpoint
CREATE INDEX `sessions_open` ON `sessions` (`profile_id`) WHERE status = 'open';