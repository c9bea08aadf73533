-- Full-text search (src/space/search/): one FTS5 table over messages, transcripts, episode summaries and facts.
-- `text` is what is searched. `profile`, `source` and `session` hold one token each (the id without dashes), so that
-- restricting to a profile's members, a vendor's sources or a session's derived rows is a MATCH, never a scan.
CREATE VIRTUAL TABLE `search_index` USING fts5(
	`text`,
	`profile`,
	`source`,
	`session`,
	`kind` UNINDEXED,
	`ref_id` UNINDEXED,
	`profile_id` UNINDEXED,
	`occurred_at` UNINDEXED,
	`channel` UNINDEXED,
	`conversation_id` UNINDEXED,
	tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
CREATE TABLE `search_state` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`indexed_seq` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `search_index` (`text`, `profile`, `source`, `kind`, `ref_id`, `profile_id`, `occurred_at`, `channel`, `conversation_id`)
SELECT m.`entry_text`, replace(m.`profile_id`, '-', ''), replace(m.`source_id`, '-', ''), m.`entry_kind`, m.`item_id`, m.`profile_id`,
	m.`occurred_at`, m.`channel`, m.`conversation_id`
FROM (
	SELECT i.*, i.`body` ->> '$.content.text' AS `entry_text`, 'message' AS `entry_kind` FROM `items` i
	WHERE i.`type` = 'event' AND i.`kind` = 'message'
	UNION ALL
	SELECT i.*, i.`body` ->> '$.content.transcript', 'transcript' FROM `items` i
	WHERE i.`type` = 'event' AND i.`kind` = 'message'
) m
WHERE m.`profile_id` IS NOT NULL AND coalesce(m.`entry_text`, '') <> '' ORDER BY m.`seq`;
--> statement-breakpoint
INSERT INTO `search_index` (`text`, `profile`, `source`, `session`, `kind`, `ref_id`, `profile_id`, `occurred_at`, `channel`, `conversation_id`)
SELECT e.`body` ->> '$.summary', replace(e.`profile_id`, '-', ''),
	(SELECT CASE WHEN count(DISTINCT s.`source_id`) = 1 THEN replace(min(s.`source_id`), '-', '') ELSE 'mixed' END
	 FROM `items` s WHERE s.`session_id` = e.`session_id`),
	replace(e.`session_id`, '-', ''), 'episode', e.`session_id`, e.`profile_id`, e.`ended_at`,
	e.`body` ->> '$.channel', e.`body` ->> '$.conversation_id'
FROM `episodes` e WHERE coalesce(e.`body` ->> '$.summary', '') <> '';
--> statement-breakpoint
INSERT INTO `search_index` (`text`, `profile`, `source`, `session`, `kind`, `ref_id`, `profile_id`, `occurred_at`, `channel`, `conversation_id`)
SELECT replace(d.`subject`, '_', ' ') || ': ' || (d.`body` ->> '$.value'), replace(d.`profile_id`, '-', ''),
	replace(d.`source_id`, '-', ''), replace(d.`session_id`, '-', ''), 'fact', d.`id`, d.`profile_id`, d.`occurred_at`,
	s.`channel`, CASE WHEN s.`kind` = 'conversation' THEN s.`conversation_id` END
FROM `derivations` d LEFT JOIN `sessions` s ON s.`session_id` = d.`session_id` WHERE d.`type` = 'fact';
--> statement-breakpoint
INSERT INTO `search_state` (`id`, `indexed_seq`) SELECT 1, coalesce(max(`seq`), 0) FROM `items`;
