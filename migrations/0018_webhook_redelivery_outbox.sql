-- A manual redelivery owes the queue a message until the queue accepts it; the outbox sweeper
-- re-sends any still owed after its grace period (issue 20 defect 4: a failed send left the
-- delivery pending with nothing queued).
ALTER TABLE `webhook_deliveries` ADD `redeliver_requested_at` text;--> statement-breakpoint
CREATE INDEX `webhook_deliveries_redeliver_idx` ON `webhook_deliveries` (`redeliver_requested_at`) WHERE "webhook_deliveries"."redeliver_requested_at" is not null;
