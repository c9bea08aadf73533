ALTER TABLE `suggestions` DROP COLUMN `same_name`;--> statement-breakpoint
ALTER TABLE `suggestions` DROP COLUMN `same_postal_code`;