CREATE TABLE `media` (
	`media_ref` text PRIMARY KEY NOT NULL,
	`content_type` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`sha256` text NOT NULL,
	`profile_id` text,
	`reserved_by` text NOT NULL,
	`status` text NOT NULL,
	`reserved_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`stored_at` integer
);
--> statement-breakpoint
CREATE INDEX `media_profile` ON `media` (`profile_id`);--> statement-breakpoint
CREATE TABLE `media_references` (
	`media_ref` text NOT NULL,
	`item_id` text NOT NULL,
	`profile_id` text NOT NULL,
	PRIMARY KEY(`media_ref`, `item_id`)
);
--> statement-breakpoint
CREATE INDEX `media_references_profile` ON `media_references` (`profile_id`);