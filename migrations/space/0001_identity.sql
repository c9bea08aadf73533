CREATE TABLE `idempotency_records` (
	`key` text PRIMARY KEY NOT NULL,
	`request_hash` text NOT NULL,
	`answer` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `idempotency_records_created_at` ON `idempotency_records` (`created_at`);--> statement-breakpoint
CREATE TABLE `timers` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`due_at` integer NOT NULL,
	`payload` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `timers_kind_key` ON `timers` (`kind`,`key`);--> statement-breakpoint
CREATE INDEX `timers_due_at` ON `timers` (`due_at`);--> statement-breakpoint
CREATE TABLE `co_occurrences` (
	`profile_a` text NOT NULL,
	`profile_b` text NOT NULL,
	`handle_a` text NOT NULL,
	`handle_b` text NOT NULL,
	`count` integer NOT NULL,
	PRIMARY KEY(`profile_a`, `profile_b`)
);
--> statement-breakpoint
CREATE TABLE `handles` (
	`handle_id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`scope` text NOT NULL,
	`value` text NOT NULL,
	`profile_id` text NOT NULL,
	`status` text NOT NULL,
	`level` text NOT NULL,
	`first_seen` integer NOT NULL,
	`last_seen` integer NOT NULL,
	`sources` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `handles_identity` ON `handles` (`type`,`scope`,`value`);--> statement-breakpoint
CREATE INDEX `handles_profile_id` ON `handles` (`profile_id`);--> statement-breakpoint
CREATE TABLE `job_runs` (
	`job` text PRIMARY KEY NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer NOT NULL,
	`slices` integer NOT NULL,
	`max_slice_ms` real NOT NULL
);
--> statement-breakpoint
CREATE TABLE `links` (
	`link_id` text PRIMARY KEY NOT NULL,
	`person_id` text NOT NULL,
	`organization_id` text NOT NULL,
	`kind` text NOT NULL,
	`role` text,
	`source_id` text,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`ended_at` integer
);
--> statement-breakpoint
CREATE INDEX `links_person` ON `links` (`person_id`);--> statement-breakpoint
CREATE INDEX `links_organization` ON `links` (`organization_id`);--> statement-breakpoint
CREATE TABLE `merges` (
	`merge_id` text PRIMARY KEY NOT NULL,
	`survivor_id` text NOT NULL,
	`absorbed_id` text NOT NULL,
	`method` text NOT NULL,
	`item_id` text,
	`source_id` text,
	`person_id` text,
	`created_at` integer NOT NULL,
	`undone_at` integer
);
--> statement-breakpoint
CREATE INDEX `merges_survivor` ON `merges` (`survivor_id`);--> statement-breakpoint
CREATE INDEX `merges_absorbed` ON `merges` (`absorbed_id`);--> statement-breakpoint
CREATE TABLE `object_owners` (
	`object_type` text NOT NULL,
	`object_id` text NOT NULL,
	`profile_id` text NOT NULL,
	PRIMARY KEY(`object_type`, `object_id`)
);
--> statement-breakpoint
CREATE TABLE `profile_traits` (
	`profile_id` text NOT NULL,
	`trait` text NOT NULL,
	`value` text NOT NULL,
	PRIMARY KEY(`profile_id`, `trait`)
);
--> statement-breakpoint
CREATE INDEX `profile_traits_value` ON `profile_traits` (`trait`,`value`,`profile_id`);--> statement-breakpoint
CREATE TABLE `profiles` (
	`seq` integer PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL,
	`subject_kind` text NOT NULL,
	`merged_into` text,
	`root_id` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `profiles_profile_id` ON `profiles` (`profile_id`);--> statement-breakpoint
CREATE INDEX `profiles_root_id` ON `profiles` (`root_id`);--> statement-breakpoint
CREATE TABLE `suggestions` (
	`suggestion_id` text PRIMARY KEY NOT NULL,
	`profile_a` text NOT NULL,
	`profile_b` text NOT NULL,
	`handle_a` text NOT NULL,
	`handle_b` text NOT NULL,
	`score` real NOT NULL,
	`same_name` integer NOT NULL,
	`same_postal_code` integer NOT NULL,
	`co_occurrences` integer NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `suggestions_pair` ON `suggestions` (`profile_a`,`profile_b`);--> statement-breakpoint
CREATE INDEX `suggestions_status` ON `suggestions` (`status`);--> statement-breakpoint
CREATE TABLE `verification_levels` (
	`target_kind` text NOT NULL,
	`target_id` text NOT NULL,
	`level` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`target_kind`, `target_id`)
);
--> statement-breakpoint
ALTER TABLE `items` ADD `profile_id` text;