-- The last move, first release (docs/scaling.md#the-last-move-d1s-per-organization-tables-dropped): applied before this
-- release's Workers run, while the previous release's still do, so it changes nothing they read.
-- It refuses while any organization is not in its storage object: the release before this one moves them
-- (`npm run storage -- move --all --remote`); the error names the constraint `every_organization_in_its_object`.
CREATE TABLE `every_organization_in_its_object` (
	`storage` text NOT NULL CONSTRAINT `every_organization_in_its_object` CHECK (`storage` = 'object')
);--> statement-breakpoint
INSERT INTO `every_organization_in_its_object` (`storage`) SELECT `storage` FROM `organizations`;--> statement-breakpoint
DROP TABLE `every_organization_in_its_object`;--> statement-breakpoint
-- This release's code no longer writes the flag, which the previous release's Workers still read during the deploy's
-- overlap: an organization created from now on (by the operator or a sandbox) is marked as born in its object.
CREATE TRIGGER `organizations_born_in_their_objects` AFTER INSERT ON `organizations`
FOR EACH ROW WHEN NEW.`storage` IS NOT 'object'
BEGIN
	UPDATE `organizations` SET `storage` = 'object' WHERE `id` = NEW.`id`;
END;--> statement-breakpoint
-- When this ran: migration 0051 waits until this release's code has replaced the previous release's everywhere.
CREATE TABLE `last_move_expanded_at` (`at` text NOT NULL);--> statement-breakpoint
INSERT INTO `last_move_expanded_at` (`at`) VALUES (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'));
