CREATE TABLE `memory_entries` (
	`profile_id` text NOT NULL,
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`key` text NOT NULL,
	`at` integer NOT NULL,
	`listed` integer NOT NULL,
	`open_at` integer,
	`view` text,
	`open_item` text,
	PRIMARY KEY(`profile_id`, `kind`, `subject`, `key`)
);
--> statement-breakpoint
CREATE INDEX `memory_entries_list` ON `memory_entries` (`profile_id`,`kind`,`listed`,`at`,`key`);--> statement-breakpoint
CREATE INDEX `memory_entries_open` ON `memory_entries` (`profile_id`,`open_at`,`key`);--> statement-breakpoint
DROP INDEX `derivations_profile`;--> statement-breakpoint
CREATE INDEX `derivations_profile` ON `derivations` (`profile_id`,`type`,`subject`,`occurred_at`,`seq`);