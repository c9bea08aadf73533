CREATE TABLE `context_uses` (
	`day` text NOT NULL,
	`source_id` text NOT NULL,
	`current` integer NOT NULL,
	`late` integer NOT NULL,
	`unknown` integer NOT NULL,
	`none` integer NOT NULL,
	PRIMARY KEY(`day`, `source_id`)
);
--> statement-breakpoint
CREATE TABLE `served_contexts` (
	`etag` text PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`served_at` integer NOT NULL,
	`superseded_at` integer
);
--> statement-breakpoint
CREATE INDEX `served_contexts_profile` ON `served_contexts` (`profile_id`,`superseded_at`);--> statement-breakpoint
CREATE TABLE `corrections` (
	`target_id` text PRIMARY KEY NOT NULL,
	`action` text NOT NULL,
	`value` text,
	`item_id` text NOT NULL,
	`seq` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_profile_last` ON `sessions` (`profile_id`,`last_at`);