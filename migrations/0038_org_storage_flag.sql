-- Where each organization's per-organization tables live (docs/scaling.md, issue 39): every
-- organization starts in D1; `npm run storage -- move` sets `moving`, then `object` (and an undo
-- `returning`, then `d1`).
ALTER TABLE `organizations` ADD `storage` text DEFAULT 'd1' NOT NULL;
