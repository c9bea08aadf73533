-- Items that end or hand over sessions by time: retention tombstones the old ones
-- (privacy/conversation-erasure.ts eraseControlsBefore) without reading the newer. Partial: only those items.
CREATE INDEX `items_control_time` ON `items` (`occurred_at`) WHERE type IN ('handoff', 'conversation.ended', 'task.ended');