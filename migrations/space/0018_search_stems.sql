-- Plain search by word stems (src/space/search/): `search_stems` holds, under the rowid of each `search_index` row, its
-- words as Porter2 stems without function words (`stems`), the stems of the two turns before it in its session (`near`,
-- weighted lower: BM25F), and its profile and source tokens, so that a plain search matches, counts and restricts in
-- one table. The stems are made by the service (src/space/search/stems.ts), so `unicode61` only splits them again.
-- `detail=column`: plain search needs which column holds a term, never where in it (no phrases), and without
-- position lists the index a batch writes is smaller.
CREATE VIRTUAL TABLE `search_stems` USING fts5(
	`stems`,
	`near`,
	`profile`,
	`source`,
	detail = column,
	tokenize = 'unicode61 remove_diacritics 2'
);
--> statement-breakpoint
-- Rows indexed before this migration are stemmed by the `search.reindex` timer in slices (src/space/search/reindex.ts),
-- from `next_rowid` to `last_rowid`; the row is deleted when it is done, and until then plain search ranks word for word.
CREATE TABLE `search_reindex` (
	`id` integer PRIMARY KEY NOT NULL CHECK (`id` = 1),
	`next_rowid` integer NOT NULL,
	`last_rowid` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `search_reindex` (`id`, `next_rowid`, `last_rowid`)
SELECT 1, 1, `rowid` FROM (SELECT `rowid` FROM `search_index` ORDER BY `rowid` DESC LIMIT 1);
--> statement-breakpoint
INSERT INTO `timers` (`kind`, `key`, `due_at`, `payload`)
SELECT 'search.reindex', '', 0, 'null' FROM `search_reindex`;
