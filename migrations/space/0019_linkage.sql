-- Suggestions by probabilistic record linkage (issue 30). The names and postal codes noted so far
-- become traits (a name's first word the given name, the rest the family name), and every profile
-- with traits is compared by the next run of the job.
CREATE TABLE `linkage_dirty` (
	`profile_id` text PRIMARY KEY NOT NULL
);
--> statement-breakpoint
CREATE TABLE `linkage_keys` (
	`key` text NOT NULL,
	`profile_id` text NOT NULL,
	PRIMARY KEY(`key`, `profile_id`)
);
--> statement-breakpoint
CREATE INDEX `linkage_keys_profile` ON `linkage_keys` (`profile_id`);--> statement-breakpoint
CREATE TABLE `linkage_model` (
	`id` integer PRIMARY KEY NOT NULL,
	`model` text,
	`profiles` integer DEFAULT 0 NOT NULL,
	`estimated_at` integer
);
--> statement-breakpoint
CREATE TABLE `linkage_pairs` (
	`profile_a` text NOT NULL,
	`profile_b` text NOT NULL,
	`pattern` text NOT NULL,
	`meetings` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`profile_a`, `profile_b`)
);
--> statement-breakpoint
CREATE INDEX `linkage_pairs_b` ON `linkage_pairs` (`profile_b`);--> statement-breakpoint
CREATE TABLE `linkage_patterns` (
	`pattern` text PRIMARY KEY NOT NULL,
	`pairs` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `trait_changes` (
	`seq` integer PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL
);
--> statement-breakpoint
DROP INDEX `suggestions_status`;--> statement-breakpoint
ALTER TABLE `suggestions` ADD `pattern` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `suggestions` ADD `run` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `suggestions_status_run` ON `suggestions` (`status`,`run`);--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_profile_traits` (
	`seq` integer PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`trait` text NOT NULL,
	`value` text NOT NULL,
	`noted_at` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_profile_traits` ("profile_id", "trait", "value", "noted_at")
SELECT "profile_id", 'postal_code', "value", 0 FROM `profile_traits` WHERE "trait" = 'postal_code'
UNION ALL
SELECT "profile_id", 'given_name', CASE WHEN instr("value", ' ') > 0 THEN substr("value", 1, instr("value", ' ') - 1) ELSE "value" END, 0
FROM `profile_traits` WHERE "trait" = 'name'
UNION ALL
SELECT "profile_id", 'family_name', substr("value", instr("value", ' ') + 1), 0 FROM `profile_traits` WHERE "trait" = 'name' AND instr("value", ' ') > 0;--> statement-breakpoint
DROP TABLE `profile_traits`;--> statement-breakpoint
ALTER TABLE `__new_profile_traits` RENAME TO `profile_traits`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `profile_traits_value` ON `profile_traits` (`profile_id`,`trait`,`value`);--> statement-breakpoint
INSERT INTO `trait_changes` ("profile_id") SELECT DISTINCT "profile_id" FROM `profile_traits`;
