/** Where the bench's Worker (scripts/bench/entry.ts) serves the floors; its scenarios (areas/baselines.ts) call them. */
export const METERED_ECHO_PATH = "/api/v1/__bench/metered-echo";
export const METERED_WRITE_PATH = "/api/v1/__bench/metered-write";
export const METERED_EVENT_PATH = "/api/v1/__bench/metered-event";
export const METERED_READ_PATH = "/api/v1/__bench/metered-read";
export const METERED_PAGE_PATH = "/api/v1/__bench/metered-page";
/** A bare Worker answering a constant copy of another scenario's answer (`/<scenario>`; scripts/bench/worker.ts). */
export const BARE_ANSWER_PATH = "/__bench/baseline-answer";
/** `npm run profile -- <scenario> --in-isolate` serves a scenario's request many times inside the isolate through it (scripts/bench/entry.ts). */
export const IN_ISOLATE_PATH = "/__bench/in-isolate";
/** What the queue has left to do: outbox rows not fanned out and deliveries by status, every organization's or `?org_id=`'s (scripts/bench/entry.ts). */
export const PENDING_WORK_PATH = "/__bench/pending-work";
