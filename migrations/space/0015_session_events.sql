-- A session's events move from the index `items_session` to `session_events` (WITHOUT ROWID, keyed like the index),
-- written by folds of `item_placements`: a batch appends its placements instead of an index entry at a random place
-- per event. Only events: every reader of a session's items reads its events.
CREATE TABLE `item_placements` (
	`seq` integer PRIMARY KEY NOT NULL,
	`session_id` text NOT NULL,
	`occurred_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `session_events` (
	`session_id` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`session_id`, `occurred_at`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `session_events` (`session_id`, `occurred_at`, `seq`)
SELECT `session_id`, `occurred_at`, `seq` FROM `items` WHERE `session_id` IS NOT NULL AND `type` = 'event'
ORDER BY `session_id`, `occurred_at`, `seq`;
--> statement-breakpoint
DROP INDEX `items_session`;
