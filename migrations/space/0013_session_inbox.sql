CREATE TABLE `session_inbox` (
	`seq` integer PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`conversation_key` text NOT NULL,
	`kind` text NOT NULL,
	`channel` text,
	`conversation_id` text,
	`profile_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`last_at` integer NOT NULL,
	`status` text NOT NULL,
	`closed_at` integer,
	`closed_by` text,
	`handoff_at` integer
);
