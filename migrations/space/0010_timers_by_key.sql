CREATE TABLE `__new_timers` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`due_at` integer NOT NULL,
	`payload` text,
	PRIMARY KEY(`kind`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_timers`("kind", "key", "due_at", "payload") SELECT "kind", "key", "due_at", "payload" FROM `timers`;--> statement-breakpoint
DROP TABLE `timers`;--> statement-breakpoint
ALTER TABLE `__new_timers` RENAME TO `timers`;--> statement-breakpoint
CREATE INDEX `timers_due_at` ON `timers` (`due_at`);
