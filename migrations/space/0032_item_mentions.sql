-- Items that name a handle of another profile than their own, by handle (src/space/privacy/mentions.ts): forget finds
-- them by index. `WITHOUT ROWID`: a handle's items are one range of the key.
CREATE TABLE `item_mentions` (
	`handle_id` text NOT NULL,
	`seq` integer NOT NULL,
	PRIMARY KEY(`handle_id`, `seq`)
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `items_profile_not_event` ON `items` (`profile_id`) WHERE type <> 'event' AND profile_id IS NOT NULL;
--> statement-breakpoint
-- Items stored before: those naming more than one handle (or a subject's profile id and a handle) are matched to the
-- handles table by their values as normalized here, as `identity/handles.ts` does for every international spelling
-- (e-mails trimmed and lower-cased; phones without `tel:`, separators and a `(0)`, `00` read as `+`).
INSERT OR IGNORE INTO `item_mentions` (`handle_id`, `seq`)
SELECT h.`handle_id`, n.`seq` FROM (
	SELECT i.`seq`, i.`profile_id`, x.value ->> 'type' AS `type`, coalesce(x.value ->> 'scope', '') AS `scope`,
		CASE x.value ->> 'type'
			WHEN 'email' THEN lower(trim(x.value ->> 'value'))
			WHEN 'phone_e164' THEN (
				SELECT CASE WHEN p.v LIKE '00%' THEN '+' || substr(p.v, 3) ELSE p.v END FROM (
					SELECT replace(replace(replace(replace(replace(replace(replace(replace(
						CASE WHEN lower(substr(trim(x.value ->> 'value'), 1, 4)) = 'tel:' THEN substr(trim(x.value ->> 'value'), 5)
						ELSE trim(x.value ->> 'value') END,
						'(0)', ''), ' ', ''), '.', ''), '-', ''), '(', ''), ')', ''), '/', ''), char(8209), '') AS v
				) p
			)
			ELSE x.value ->> 'value'
		END AS `value`
	FROM `items` i
	CROSS JOIN json_each(json_insert(coalesce(i.`body` -> '$.handles', '[]'), '$[#]', json(i.`body` -> '$.subject.handle'))) x
	WHERE i.`type` IN ('event', 'identify', 'verify') AND i.`profile_id` IS NOT NULL
		AND json_array_length(coalesce(i.`body` -> '$.handles', '[]')) + (i.`body` -> '$.subject' IS NOT NULL) > 1
		AND x.value IS NOT NULL AND json_type(x.value) = 'object'
) n
CROSS JOIN `handles` h ON h.`type` = n.`type` AND h.`scope` = n.`scope` AND h.`value` = n.`value`
WHERE h.`profile_id` <> n.`profile_id`;
