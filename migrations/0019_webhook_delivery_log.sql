-- Issue 16 §4: sample events (`POST /api/v1/webhooks/{id}/trigger`) are marked in the outbox, and the
-- delivery log keeps each attempt's request body and the first KiB of the receiver's answer, for 30
-- days (src/jobs/purge-webhook-bodies.ts clears them; the index finds the ones still kept).
ALTER TABLE `event_outbox` ADD `sample` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_attempts` ADD `request_body` text;--> statement-breakpoint
ALTER TABLE `webhook_attempts` ADD `response_body` text;--> statement-breakpoint
ALTER TABLE `webhook_attempts` ADD `response_bytes` integer;--> statement-breakpoint
CREATE INDEX `webhook_attempts_bodies_idx` ON `webhook_attempts` (`attempted_at`) WHERE "webhook_attempts"."request_body" is not null;
