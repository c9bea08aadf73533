DROP INDEX `sessions_conversation_start`;--> statement-breakpoint
-- Session keys put the conversation (or task) before the profile: `c:<conversation>:<profile>`.
UPDATE `sessions` SET `conversation_key` = substr(`conversation_key`, 1, 2) || `conversation_id` || ':' || `profile_id`
WHERE substr(`conversation_key`, 1, 2) IN ('c:', 't:');
