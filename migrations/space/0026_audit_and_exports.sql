-- The space's audit log (src/audit/log.ts: governance actions, ids only, append-only) and its exports
-- (src/space/exports/records.ts: each export's record, where its file is in R2, and the profiles it holds).
CREATE TABLE `audit_log` (
	`seq` integer PRIMARY KEY NOT NULL,
	`audit_id` text NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`action` text NOT NULL,
	`targets` text NOT NULL,
	`outcome` text NOT NULL,
	`request_id` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_log_id` ON `audit_log` (`audit_id`);--> statement-breakpoint
CREATE INDEX `audit_log_at` ON `audit_log` (`at`,`seq`);--> statement-breakpoint
CREATE TABLE `export_profiles` (
	`export_id` text NOT NULL,
	`profile_id` text NOT NULL,
	PRIMARY KEY(`export_id`, `profile_id`)
);
--> statement-breakpoint
CREATE INDEX `export_profiles_profile` ON `export_profiles` (`profile_id`);--> statement-breakpoint
CREATE TABLE `exports` (
	`export_id` text PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`state` text NOT NULL,
	`object_key` text NOT NULL,
	`upload_id` text,
	`attempts` integer NOT NULL,
	`counts` text NOT NULL,
	`bytes` integer,
	`requested_by` text NOT NULL,
	`created_at` integer NOT NULL,
	`completed_at` integer
);
