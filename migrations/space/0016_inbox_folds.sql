CREATE TABLE `inbox_folds` (
	`inbox` text PRIMARY KEY NOT NULL,
	`generation` integer NOT NULL
);
