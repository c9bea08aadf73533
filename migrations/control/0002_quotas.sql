CREATE TABLE `quotas` (
	`tenant_id` text NOT NULL,
	`metric` text NOT NULL,
	`limit` integer NOT NULL,
	`period` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`tenant_id`, `metric`)
);
