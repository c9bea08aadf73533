CREATE TABLE `compile_inbox` (
	`seq` integer PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`profile_id` text NOT NULL,
	`events` integer NOT NULL,
	`queued_at` integer NOT NULL
);
