-- Each profile's traits and keys in one row, and the linkage tables WITHOUT ROWID (one b-tree
-- each; drizzle cannot declare it). What they held is derived: the tables start empty and every
-- profile with traits is compared by the next run.
DROP TABLE `linkage_keys`;--> statement-breakpoint
CREATE TABLE `linkage_keys` (
	`key` text NOT NULL,
	`profile_id` text NOT NULL,
	PRIMARY KEY(`key`, `profile_id`)
) WITHOUT ROWID;--> statement-breakpoint
CREATE TABLE `linkage_profiles` (
	`profile_id` text PRIMARY KEY NOT NULL,
	`traits` text NOT NULL,
	`keys` text NOT NULL
) WITHOUT ROWID;--> statement-breakpoint
DROP TABLE `linkage_pairs`;--> statement-breakpoint
CREATE TABLE `linkage_pairs` (
	`profile_a` text NOT NULL,
	`profile_b` text NOT NULL,
	`pattern` text NOT NULL,
	`meetings` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`profile_a`, `profile_b`)
) WITHOUT ROWID;--> statement-breakpoint
CREATE INDEX `linkage_pairs_b` ON `linkage_pairs` (`profile_b`);--> statement-breakpoint
DROP TABLE `linkage_dirty`;--> statement-breakpoint
CREATE TABLE `linkage_dirty` (
	`profile_id` text PRIMARY KEY NOT NULL
) WITHOUT ROWID;--> statement-breakpoint
DELETE FROM `linkage_patterns`;--> statement-breakpoint
UPDATE `linkage_model` SET `profiles` = 0;--> statement-breakpoint
DELETE FROM `trait_changes`;--> statement-breakpoint
INSERT INTO `trait_changes` ("profile_id") SELECT DISTINCT "profile_id" FROM `profile_traits`;
