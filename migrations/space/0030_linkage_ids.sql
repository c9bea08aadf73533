-- The linkage tables by integer linkage ids (`lid`) and 53-bit key hashes instead of UUID and key
-- text: smaller rows and indexes for the suggestions job to write. Keys and pairs WITHOUT ROWID
-- (drizzle cannot declare it). What they held is derived: the tables start empty and every
-- profile with traits is compared by the next run, as a space's first.
DROP TABLE `linkage_keys`;--> statement-breakpoint
CREATE TABLE `linkage_keys` (
	`key` integer NOT NULL,
	`lid` integer NOT NULL,
	PRIMARY KEY(`key`, `lid`)
) WITHOUT ROWID;--> statement-breakpoint
DROP TABLE `linkage_profiles`;--> statement-breakpoint
CREATE TABLE `linkage_profiles` (
	`lid` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`profile_id` text NOT NULL,
	`traits` text,
	`keys` text DEFAULT '[]' NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX `linkage_profiles_profile_id` ON `linkage_profiles` (`profile_id`);--> statement-breakpoint
DROP TABLE `linkage_pairs`;--> statement-breakpoint
CREATE TABLE `linkage_pairs` (
	`a` integer NOT NULL,
	`b` integer NOT NULL,
	`pattern` text NOT NULL,
	`meetings` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`a`, `b`)
) WITHOUT ROWID;--> statement-breakpoint
CREATE INDEX `linkage_pairs_b` ON `linkage_pairs` (`b`);--> statement-breakpoint
DROP TABLE `linkage_dirty`;--> statement-breakpoint
CREATE TABLE `linkage_dirty` (
	`lid` integer PRIMARY KEY NOT NULL
);--> statement-breakpoint
DELETE FROM `linkage_patterns`;--> statement-breakpoint
UPDATE `linkage_model` SET `profiles` = 0;--> statement-breakpoint
DELETE FROM `trait_changes`;--> statement-breakpoint
INSERT INTO `trait_changes` ("profile_id") SELECT DISTINCT "profile_id" FROM `profile_traits`;
