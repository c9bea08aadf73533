CREATE TABLE `handle_sightings` (
	`seq` integer PRIMARY KEY NOT NULL,
	`handle_id` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL
);
