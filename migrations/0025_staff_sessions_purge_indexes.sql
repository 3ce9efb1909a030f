-- The nightly purge of lapsed staff sessions deletes by `expires_at <= now OR last_seen_at <= idle
-- cutoff`: with an index on each column SQLite answers it as a MULTI-INDEX OR of two range
-- searches; without them it read every session of every organization (npm run bench:scale).
CREATE INDEX `staff_sessions_expires_idx` ON `staff_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `staff_sessions_last_seen_idx` ON `staff_sessions` (`last_seen_at`);
