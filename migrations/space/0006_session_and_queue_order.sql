DROP INDEX `sessions_profile_last`;--> statement-breakpoint
CREATE INDEX `sessions_profile_last` ON `sessions` (`profile_id`,`last_at`,`started_at`);--> statement-breakpoint
CREATE INDEX `compile_queue_queued` ON `compile_queue` (`queued_at`,`session_id`);