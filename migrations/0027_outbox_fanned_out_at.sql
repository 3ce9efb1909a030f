-- The outbox row is now marked by the queue consumer when it fans the event out (in the batch that
-- creates the event's deliveries), no longer by the request after its queue send: a request that
-- raises an event is one D1 round trip and a send (issue 19). The column says what it now means; the
-- sweeper's index is renamed with it (SQLite's RENAME COLUMN already rewrites the index's column).
-- Rows marked before this migration were accepted by the queue, which then fanned them out.
ALTER TABLE `event_outbox` RENAME COLUMN `enqueued_at` TO `fanned_out_at`;--> statement-breakpoint
DROP INDEX `event_outbox_unsent_idx`;--> statement-breakpoint
CREATE INDEX `event_outbox_not_fanned_out_idx` ON `event_outbox` (`fanned_out_at`,`occurred_at`);
