import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { expect, it, vi } from "vitest";
import { getDb } from "../src/db/client";
import { staffSessions, staffUsers } from "../src/db/schema";
import worker from "../src/index";
import { SCHEDULE } from "../src/jobs";
import { createOrg } from "./helpers/factories";

const HOUR = 3_600_000;

it("the 00:15 job removes lapsed staff sessions and keeps live ones", async () => {
  const org = await createOrg();
  const userId = `usr_${org.id}`;
  const db = getDb(env.DB);
  await db.insert(staffUsers).values({ id: userId, orgId: org.id, email: `${userId}@example.test`, name: "Desk", passwordHash: "scrypt$x" });
  const now = Date.UTC(2026, 10, 25, 0, 15);
  const iso = (ms: number) => new Date(ms).toISOString();
  const sessions = [
    { id: "live", created: now - HOUR, lastSeen: now - 60_000, expires: now + 11 * HOUR },
    { id: "idle", created: now - 2 * HOUR, lastSeen: now - HOUR, expires: now + 10 * HOUR },
    { id: "expired", created: now - 13 * HOUR, lastSeen: now - 60_000, expires: now - HOUR },
  ];
  await db.insert(staffSessions).values(
    sessions.map((s) => ({
      idHash: `${s.id}-${org.id}`,
      userId,
      orgId: org.id,
      createdAt: iso(s.created),
      lastSeenAt: iso(s.lastSeen),
      expiresAt: iso(s.expires),
    })),
  );

  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ scheduledTime: new Date(now), cron: "15 0 * * *" }), env, ctx);
  await waitOnExecutionContext(ctx);

  const { results } = await env.DB.prepare("SELECT id_hash FROM staff_sessions WHERE org_id = ?").bind(org.id).all<{ id_hash: string }>();
  expect(results.map((r) => r.id_hash)).toEqual([`live-${org.id}`]);
});

it("every cron in wrangler.toml runs at least one job, and every scheduled job has its cron", () => {
  const scheduled = Object.entries(SCHEDULE)
    .filter(([, jobs]) => jobs.length > 0)
    .map(([cron]) => cron);
  expect([...scheduled].sort()).toEqual([...env.TEST_WRANGLER_CRONS].sort());
});

it("a failing job's log line names the job, whatever the bundle calls its function", async () => {
  const errors = vi.spyOn(console, "error").mockImplementation(() => {});
  vi.spyOn(globalThis, "fetch").mockRejectedValue(new TypeError("network down"));
  try {
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.UTC(2026, 10, 26, 4, 30), cron: "30 4 * * *" }), env, ctx);
    await waitOnExecutionContext(ctx).catch(() => {});
    const failed = errors.mock.calls.map(([line]) => JSON.parse(String(line))).find((line) => line.event === "scheduled_job_failed");
    expect(failed).toMatchObject({ cron: "30 4 * * *", job: "refresh-sanctions-list", error: "TypeError" });
  } finally {
    vi.restoreAllMocks();
  }
});

it("every scheduled job has its own name", () => {
  const names = Object.values(SCHEDULE).flatMap((jobs) => jobs.map((job) => job.name));
  expect(new Set(names).size).toBe(names.length);
  for (const name of names) expect(name).toMatch(/^[a-z]+(-[a-z]+)+$/);
});
