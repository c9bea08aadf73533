-- Person tokens cut before their expiry, as the ControlObject pushes them (src/space/replica.ts); the object's own
-- signing keys (cursors); and `Idempotency-Key` answers kept per caller. Answers kept before had no caller, so they
-- are not carried over: a key sent again after this migration is a fresh request (never another caller's answer).
CREATE TABLE `replica_token_cuts` (
	`id` integer PRIMARY KEY NOT NULL,
	`person_id` text NOT NULL,
	`token_id` text,
	`generation` integer NOT NULL,
	`until` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `signing_keys` (
	`name` text PRIMARY KEY NOT NULL,
	`secret` text NOT NULL
);
--> statement-breakpoint
PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_idempotency_records` (
	`scope` text NOT NULL,
	`key` text NOT NULL,
	`request_hash` text NOT NULL,
	`answer` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`scope`, `key`)
);
--> statement-breakpoint
DROP TABLE `idempotency_records`;--> statement-breakpoint
ALTER TABLE `__new_idempotency_records` RENAME TO `idempotency_records`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `idempotency_records_created_at` ON `idempotency_records` (`created_at`);