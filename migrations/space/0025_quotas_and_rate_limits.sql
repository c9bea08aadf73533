CREATE TABLE `rate_buckets` (
	`name` text PRIMARY KEY NOT NULL,
	`units` integer NOT NULL,
	`at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `replica_quotas` (
	`metric` text PRIMARY KEY NOT NULL,
	`period` text NOT NULL,
	`limit` integer NOT NULL,
	`share` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `usage_counts` (
	`metric` text PRIMARY KEY NOT NULL,
	`period_start` integer NOT NULL,
	`used` integer NOT NULL
);
