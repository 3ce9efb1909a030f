CREATE TABLE `zip_code_sets` (
	`country` text PRIMARY KEY NOT NULL,
	`source` text NOT NULL,
	`zip_count` integer NOT NULL,
	`bits_base64` text NOT NULL
);
