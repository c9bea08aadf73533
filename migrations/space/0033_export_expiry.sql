-- Completed exports live 7 days (src/space/exports/expiry.ts): those completed before this migration get the expiry
-- timer too, due at the earliest one's expiry (604,800,000 ms after its completion).
INSERT INTO `timers` (`kind`, `key`, `due_at`, `payload`)
SELECT 'export.expire', '', min(`completed_at`) + 604800000, 'null' FROM `exports`
WHERE `state` = 'completed' AND `completed_at` IS NOT NULL HAVING count(*) > 0
ON CONFLICT (`kind`, `key`) DO UPDATE SET `due_at` = min(`due_at`, excluded.`due_at`);
