-- Person tokens cut before their expiry (src/control/token-cuts.ts) and each person's token generation; the object's
-- own signing keys (cursors); spaces by tenant, where a cut is pushed.
CREATE TABLE `signing_keys` (
	`name` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `token_cuts` (
	`id` integer PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`person_id` text NOT NULL,
	`token_id` text,
	`generation` integer NOT NULL,
	`until` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `token_cuts_tenant` ON `token_cuts` (`tenant_id`,`until`);--> statement-breakpoint
CREATE INDEX `token_cuts_token` ON `token_cuts` (`token_id`);--> statement-breakpoint
ALTER TABLE `people` ADD `token_generation` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `spaces_tenant` ON `spaces` (`tenant_id`);