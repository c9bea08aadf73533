CREATE TABLE `compile_queue` (
	`session_id` text PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`events` integer NOT NULL,
	`queued_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `compile_queue_profile` ON `compile_queue` (`profile_id`);--> statement-breakpoint
CREATE TABLE `conversation_aliases` (
	`alias` text PRIMARY KEY NOT NULL,
	`conversation_id` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `derivations` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`profile_id` text NOT NULL,
	`session_id` text NOT NULL,
	`item_id` text NOT NULL,
	`source_id` text NOT NULL,
	`subject` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`seq` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `derivations_profile` ON `derivations` (`profile_id`,`type`,`subject`,`occurred_at`);--> statement-breakpoint
CREATE INDEX `derivations_session` ON `derivations` (`session_id`);--> statement-breakpoint
CREATE TABLE `episodes` (
	`session_id` text PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`started_at` integer NOT NULL,
	`ended_at` integer NOT NULL,
	`open` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `episodes_profile` ON `episodes` (`profile_id`,`started_at`);--> statement-breakpoint
CREATE TABLE `memories` (
	`profile_id` text PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`through_at` integer,
	`compiled_at` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `sessions` (
	`session_id` text PRIMARY KEY NOT NULL,
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
--> statement-breakpoint
CREATE INDEX `sessions_conversation` ON `sessions` (`conversation_key`,`started_at`);--> statement-breakpoint
CREATE INDEX `sessions_conversation_id` ON `sessions` (`conversation_id`,`status`);--> statement-breakpoint
CREATE INDEX `sessions_profile` ON `sessions` (`profile_id`,`status`);--> statement-breakpoint
ALTER TABLE `items` ADD `session_id` text;--> statement-breakpoint
CREATE INDEX `items_session` ON `items` (`session_id`,`occurred_at`,`seq`);