CREATE TABLE `owed_pushes` (
	`space_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL
);
