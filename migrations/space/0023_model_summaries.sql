-- The model path of summaries (src/space/memory/model-summaries.ts): what the model was asked and answered per session,
-- the closed sessions waiting for it, and its calls per day and outcome. Empty until a space names a model and the
-- AI binding is present.
CREATE TABLE `model_calls` (
	`day` text NOT NULL,
	`outcome` text NOT NULL,
	`calls` integer NOT NULL,
	PRIMARY KEY(`day`, `outcome`)
);
--> statement-breakpoint
CREATE TABLE `model_queue` (
	`session_id` text PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`due_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `model_queue_due` ON `model_queue` (`due_at`);--> statement-breakpoint
CREATE TABLE `model_summaries` (
	`session_id` text PRIMARY KEY NOT NULL,
	`tried_events` integer NOT NULL,
	`tried_seq` integer NOT NULL,
	`tried_at` integer NOT NULL,
	`events` integer,
	`last_seq` integer,
	`model` text,
	`digest` text
);
