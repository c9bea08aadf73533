CREATE TABLE `configs` (
	`space_id` text NOT NULL,
	`version` integer NOT NULL,
	`values` text NOT NULL,
	`updated_at` integer NOT NULL,
	`updated_by` text NOT NULL,
	PRIMARY KEY(`space_id`, `version`)
);
--> statement-breakpoint
CREATE TABLE `generated_secrets` (
	`name` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `idempotency_records` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`answer` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created` ON `idempotency_records` (`created_at`);--> statement-breakpoint
CREATE TABLE `keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`source_id` text NOT NULL,
	`space_id` text NOT NULL,
	`scopes` text NOT NULL,
	`mode` text NOT NULL,
	`digest` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`rotated_at` integer,
	`revoked_at` integer,
	`expires_at` integer
);
--> statement-breakpoint
CREATE INDEX `keys_space` ON `keys` (`space_id`);--> statement-breakpoint
CREATE INDEX `keys_source` ON `keys` (`source_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `people` (
	`person_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text,
	`roles` text NOT NULL,
	`vendor_sources` text NOT NULL,
	`password_hash` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `people_email` ON `people` (`email`);--> statement-breakpoint
CREATE INDEX `people_tenant` ON `people` (`tenant_id`,`person_id`);--> statement-breakpoint
CREATE TABLE `projects` (
	`project_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `projects_tenant` ON `projects` (`tenant_id`,`project_id`);--> statement-breakpoint
CREATE TABLE `sources` (
	`source_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`space_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`verification_ceiling` text NOT NULL,
	`otp` integer NOT NULL,
	`act_operations` text NOT NULL,
	`act_object_types` text NOT NULL,
	`mapping` text,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sources_space` ON `sources` (`space_id`,`source_id`);--> statement-breakpoint
CREATE TABLE `spaces` (
	`space_id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`project_id` text NOT NULL,
	`name` text NOT NULL,
	`region` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `spaces_name` ON `spaces` (`name`);--> statement-breakpoint
CREATE INDEX `spaces_project` ON `spaces` (`project_id`,`space_id`);--> statement-breakpoint
CREATE TABLE `tenants` (
	`tenant_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
