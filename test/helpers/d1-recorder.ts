import { env } from "cloudflare:workers";

/** One statement the app prepared: its SQL, and the D1 session it ran in (`binding`: none). */
export interface RecordedStatement {
  sql: string;
  session: D1SessionConstraint | "binding";
}

/**
 * A D1 binding that records every statement prepared on it or on a session it starts (prepare,
 * exec, batch), with the session's constraint, for `createTestApp(mount, { ...env, DB })`.
 * `hold(match)` makes the next statement whose SQL matches run at once but hand its result back
 * only when released, so a test can interleave requests with a query in flight; `fail(match)`
 * makes every statement whose SQL matches reject, as a D1 outage would.
 */
export function recordingD1(real: D1Database = env.DB) {
  const statements: RecordedStatement[] = [];
  /** The constraint of every session started, in order. */
  const sessions: D1SessionConstraint[] = [];
  let held: { match: RegExp; reached: () => void; release: Promise<void> } | undefined;
  let failing: RegExp | undefined;

  const rejecting = (): D1PreparedStatement => {
    const reject = () => Promise.reject(new Error("D1_ERROR: injected failure"));
    const statement = { bind: () => statement, all: reject, raw: reject, first: reject, run: reject };
    return statement as unknown as D1PreparedStatement;
  };

  const holding = (statement: D1PreparedStatement, sql: string): D1PreparedStatement => {
    const gate = held?.match.test(sql) ? held : undefined;
    if (!gate) return statement;
    held = undefined;
    const later =
      <R>(run: () => Promise<R>) =>
      async () => {
        const result = await run();
        gate.reached();
        await gate.release;
        return result;
      };
    const wrap = (s: D1PreparedStatement): D1PreparedStatement =>
      ({
        bind: (...values: unknown[]) => wrap(s.bind(...values)),
        all: later(() => s.all()),
        raw: later(() => s.raw()),
        first: later(() => s.first()),
        run: later(() => s.run()),
      }) as unknown as D1PreparedStatement;
    return wrap(statement);
  };

  const recordOn = (target: D1Database | D1DatabaseSession, session: RecordedStatement["session"]) => ({
    prepare: (sql: string) => {
      statements.push({ sql, session });
      if (failing?.test(sql)) return rejecting();
      return holding(target.prepare(sql), sql);
    },
    batch: <T>(batch: D1PreparedStatement[]) => target.batch<T>(batch),
  });

  const DB = {
    ...recordOn(real, "binding"),
    exec: (sql: string) => {
      statements.push({ sql, session: "binding" });
      return real.exec(sql);
    },
    dump: () => real.dump(),
    withSession: (constraint: D1SessionConstraint = "first-unconstrained") => {
      sessions.push(constraint);
      const session = real.withSession(constraint);
      return { ...recordOn(session, constraint), getBookmark: () => session.getBookmark() };
    },
  } as unknown as D1Database;

  return {
    DB,
    statements,
    sessions,
    /** Forgets what was recorded so far. */
    clear: () => {
      statements.splice(0);
      sessions.splice(0);
    },
    /** Makes every statement whose SQL matches fail from now on. */
    fail(match: RegExp) {
      failing = match;
    },
    /** Holds the next statement matching `match`; `reached` resolves once it has run, `release()` lets it answer. */
    hold(match: RegExp) {
      let reached!: () => void;
      let release!: () => void;
      const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
      held = { match, reached, release: new Promise<void>((resolve) => (release = resolve)) };
      return { reached: reachedPromise, release };
    },
  };
}
