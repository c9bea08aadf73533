CREATE TABLE `erasure_handles` (
	`handle_id` text PRIMARY KEY NOT NULL,
	`receipt_id` text NOT NULL,
	`type` text NOT NULL,
	`scope` text NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `erasure_handles_identity` ON `erasure_handles` (`type`,`scope`,`value`);--> statement-breakpoint
CREATE INDEX `erasure_handles_receipt` ON `erasure_handles` (`receipt_id`);--> statement-breakpoint
CREATE TABLE `erasure_profiles` (
	`profile_id` text PRIMARY KEY NOT NULL,
	`receipt_id` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `erasure_profiles_receipt` ON `erasure_profiles` (`receipt_id`);--> statement-breakpoint
CREATE TABLE `erasures` (
	`receipt_id` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`counts` text NOT NULL,
	`started_at` integer NOT NULL,
	`completed_at` integer,
	`receipt` text
);
--> statement-breakpoint
CREATE TABLE `receipt_keys` (
	`kid` text PRIMARY KEY NOT NULL,
	`public_jwk` text NOT NULL,
	`private_key` text,
	`created_at` integer NOT NULL,
	`retired_at` integer
);
