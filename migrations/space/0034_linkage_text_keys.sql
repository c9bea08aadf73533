-- Blocking keys as their text again (migration 0030 stored 53-bit hashes): keys in text order
-- keep the members of neighbouring keys near each other, where hashes scattered a run's writes
-- over the whole table. Derived state: the linkage tables start empty and every profile with
-- traits is compared by the next run, as a space's first.
DROP TABLE `linkage_keys`;--> statement-breakpoint
CREATE TABLE `linkage_keys` (
	`key` text NOT NULL,
	`lid` integer NOT NULL,
	PRIMARY KEY(`key`, `lid`)
) WITHOUT ROWID;--> statement-breakpoint
DELETE FROM `linkage_profiles`;--> statement-breakpoint
DELETE FROM `linkage_pairs`;--> statement-breakpoint
DELETE FROM `linkage_dirty`;--> statement-breakpoint
DELETE FROM `linkage_patterns`;--> statement-breakpoint
UPDATE `linkage_model` SET `profiles` = 0;--> statement-breakpoint
DELETE FROM `trait_changes`;--> statement-breakpoint
INSERT INTO `trait_changes` ("profile_id") SELECT DISTINCT "profile_id" FROM `profile_traits`;
