CREATE TABLE `items` (
	`seq` integer PRIMARY KEY NOT NULL,
	`item_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`type` text NOT NULL,
	`kind` text,
	`channel` text,
	`conversation_id` text,
	`task_id` text,
	`source_id` text NOT NULL,
	`key_id` text NOT NULL,
	`test` integer NOT NULL,
	`occurred_at` integer NOT NULL,
	`claimed_occurred_at` integer,
	`clock_corrected` integer NOT NULL,
	`received_at` integer NOT NULL,
	`body` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `items_idempotency_key` ON `items` (`idempotency_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `items_item_id` ON `items` (`item_id`);--> statement-breakpoint
CREATE INDEX `items_occurred_at` ON `items` (`occurred_at`,`seq`);--> statement-breakpoint
CREATE TABLE `replica_config` (
	`id` integer PRIMARY KEY NOT NULL,
	`version` integer NOT NULL,
	`values` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `replica_keys` (
	`key_id` text PRIMARY KEY NOT NULL,
	`source_id` text NOT NULL,
	`scopes` text NOT NULL,
	`mode` text NOT NULL,
	`digest` text NOT NULL,
	`status` text NOT NULL,
	`expires_at` integer
);
--> statement-breakpoint
CREATE TABLE `replica_sources` (
	`source_id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`verification_ceiling` text NOT NULL,
	`act_operations` text NOT NULL,
	`act_object_types` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `space_record` (
	`space_id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`tenant_id` text NOT NULL,
	`project_id` text NOT NULL,
	`region` text NOT NULL
);
