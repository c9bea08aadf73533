-- Messages stored and not indexed yet (src/space/search/backlog.ts): a batch queues its messages here by `seq`, with the
-- profile each belongs to (a search of one profile indexes that profile's first), and the `search.index` timer indexes
-- them oldest first, deleting each row in the transaction that indexes it. Before this migration batches indexed their
-- messages themselves: nothing waits.
CREATE TABLE `search_backlog` (
	`seq` integer PRIMARY KEY NOT NULL,
	`profile_id` text NOT NULL
);
