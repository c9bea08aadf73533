-- Near words at query time (src/space/search/neighbours.ts): a search finds the turns after a matching message, and
-- their rows, through `search_turns.row`: the rowid of the turn's first `search_index` row (its text's, or its
-- transcript's when it has no text; a message with both has them at `row` and `row + 1`). Rows indexed before are
-- found by their items.
ALTER TABLE `search_turns` ADD `row` integer;
--> statement-breakpoint
UPDATE `search_turns` SET `row` = m.`row`
FROM (
	SELECT i.`seq`, min(s.`rowid`) AS `row` FROM `search_index` s CROSS JOIN `items` i ON i.`item_id` = s.`ref_id`
	WHERE s.`kind` IN ('message', 'transcript') GROUP BY i.`seq`
) m
WHERE `search_turns`.`seq` = m.`seq`;
