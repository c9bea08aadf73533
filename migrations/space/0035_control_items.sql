-- Items that end or hand over sessions (handoff, conversation.ended, task.ended) by their
-- conversation and task: forget finds those of a subject's conversations (privacy/conversation-erasure.ts).
-- Partial: only those items, so a batch of events writes nothing more.
CREATE INDEX `items_control_conversation` ON `items` (`conversation_id`) WHERE type IN ('handoff', 'conversation.ended', 'task.ended');--> statement-breakpoint
CREATE INDEX `items_control_task` ON `items` (`task_id`) WHERE type IN ('handoff', 'conversation.ended', 'task.ended');