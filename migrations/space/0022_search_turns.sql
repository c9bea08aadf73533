-- The stems of each turn by its `seq` (src/space/search/neighbours.ts): a message indexed later finds the words of the two
-- turns before it here, by the session's events (`session_events`, `item_placements`), instead of reading and stemming the
-- turns' items again. Appended in `seq` order by batches. A message with a text and a transcript has both's stems.
CREATE TABLE `search_turns` (
	`seq` integer PRIMARY KEY NOT NULL,
	`stems` text NOT NULL
);
--> statement-breakpoint
-- Turns indexed before: their stems as `search_stems` holds them (rows the reindex has not reached yet are added by it).
INSERT INTO `search_turns` (`seq`, `stems`)
SELECT i.`seq`, group_concat(s.`stems`, ' ') FROM `search_stems` s
CROSS JOIN `search_index` x ON x.`rowid` = s.`rowid`
CROSS JOIN `items` i ON i.`item_id` = x.`ref_id`
WHERE x.`kind` IN ('message', 'transcript')
GROUP BY i.`seq` ORDER BY i.`seq`;
--> statement-breakpoint
-- Batches index exactly the messages they store, in their transaction: nothing reads where the last one stopped.
DROP TABLE `search_state`;
