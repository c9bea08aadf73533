-- The control plane's audit log per tenant (src/audit/log.ts: logins, people, keys, configuration; ids only).
CREATE TABLE `audit_log` (
	`seq` integer PRIMARY KEY NOT NULL,
	`audit_id` text NOT NULL,
	`at` integer NOT NULL,
	`actor_kind` text NOT NULL,
	`actor_id` text NOT NULL,
	`action` text NOT NULL,
	`targets` text NOT NULL,
	`outcome` text NOT NULL,
	`request_id` text,
	`tenant_id` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_log_id` ON `audit_log` (`audit_id`);--> statement-breakpoint
CREATE INDEX `audit_log_tenant_at` ON `audit_log` (`tenant_id`,`at`,`seq`);