CREATE TABLE `import_errors` (
	`import_id` text NOT NULL,
	`row` integer NOT NULL,
	`code` text NOT NULL,
	`detail` text NOT NULL,
	PRIMARY KEY(`import_id`, `row`)
);
--> statement-breakpoint
CREATE TABLE `import_rows` (
	`import_id` text NOT NULL,
	`row` integer NOT NULL,
	`profile_id` text NOT NULL,
	PRIMARY KEY(`import_id`, `row`)
);
--> statement-breakpoint
CREATE INDEX `import_rows_profile` ON `import_rows` (`profile_id`);--> statement-breakpoint
CREATE TABLE `imports` (
	`import_id` text PRIMARY KEY NOT NULL,
	`format` text NOT NULL,
	`object_key` text NOT NULL,
	`own_file` integer NOT NULL,
	`file_sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`key_id` text NOT NULL,
	`status` text NOT NULL,
	`reason` text,
	`offset_byte` integer DEFAULT 0 NOT NULL,
	`offset_record` integer DEFAULT 0 NOT NULL,
	`records` integer DEFAULT 0 NOT NULL,
	`accepted` integer DEFAULT 0 NOT NULL,
	`duplicates` integer DEFAULT 0 NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`completed_at` integer
);
