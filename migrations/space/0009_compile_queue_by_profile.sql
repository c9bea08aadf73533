CREATE TABLE `__new_compile_queue` (
	`session_id` text NOT NULL,
	`profile_id` text NOT NULL,
	`events` integer NOT NULL,
	`queued_at` integer NOT NULL,
	PRIMARY KEY(`profile_id`, `session_id`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_compile_queue`("session_id", "profile_id", "events", "queued_at") SELECT "session_id", "profile_id", "events", "queued_at" FROM `compile_queue`;--> statement-breakpoint
DROP TABLE `compile_queue`;--> statement-breakpoint
ALTER TABLE `__new_compile_queue` RENAME TO `compile_queue`;--> statement-breakpoint
CREATE INDEX `compile_queue_queued` ON `compile_queue` (`queued_at`,`session_id`);
