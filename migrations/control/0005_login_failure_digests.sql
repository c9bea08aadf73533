-- Failed logins are counted under a keyed digest of the e-mail (src/control/people.ts), never the e-mail as typed:
-- the table is made again, and the failures of the last 15 minutes it held are let go (a lock they made is lifted once).
-- Written by hand: SQLite adds no NOT NULL column without a default.
DROP TABLE `login_failures`;--> statement-breakpoint
CREATE TABLE `login_failures` (
	`id` integer PRIMARY KEY NOT NULL,
	`email_digest` text NOT NULL,
	`at` integer NOT NULL
);
