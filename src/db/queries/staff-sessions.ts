import { and, eq, lte, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../client";
import { organizations, staffSessions, staffUsers } from "../schema";

/**
 * Login and session lookups run before any organization is known: they find the organization,
 * from an email or a session hash, and everything after them is scoped by it.
 */
export async function findStaffUserByEmail(db: Database, email: string) {
  const [row] = await db
    .select({
      id: staffUsers.id,
      orgId: staffUsers.orgId,
      email: staffUsers.email,
      name: staffUsers.name,
      passwordHash: staffUsers.passwordHash,
      org: { suspendedAt: organizations.suspendedAt, isSandbox: organizations.isSandbox, expiresAt: organizations.expiresAt },
    })
    .from(staffUsers)
    .innerJoin(organizations, eq(organizations.id, staffUsers.orgId))
    // Stored addresses may carry capitals (rows can be written by hand); callers pass lower case.
    .where(sql`lower(${staffUsers.email}) = ${email}`)
    .limit(1);
  return row ?? null;
}

export interface NewStaffSession {
  idHash: string;
  userId: string;
  orgId: string;
  createdAt: string;
  lastSeenAt: string;
  expiresAt: string;
}

/**
 * Stores a new session in one atomic batch that also drops the session it replaces (rotation at
 * login) and the user's sessions that have already lapsed, so abandoned rows do not pile up.
 */
export async function startStaffSession(db: Database, session: NewStaffSession, options: { replacesIdHash?: string; idleCutoff: string }) {
  const statements: BatchItem<"sqlite">[] = [];
  if (options.replacesIdHash) statements.push(db.delete(staffSessions).where(eq(staffSessions.idHash, options.replacesIdHash)));
  statements.push(
    db
      .delete(staffSessions)
      .where(
        and(
          eq(staffSessions.userId, session.userId),
          or(lte(staffSessions.expiresAt, session.createdAt), lte(staffSessions.lastSeenAt, options.idleCutoff)),
        ),
      ),
    db.insert(staffSessions).values(session),
  );
  const [first, ...rest] = statements;
  await db.batch([first, ...rest]);
}

export async function findStaffSession(db: Database, idHash: string) {
  const [row] = await db
    .select({
      userId: staffSessions.userId,
      orgId: staffSessions.orgId,
      createdAt: staffSessions.createdAt,
      lastSeenAt: staffSessions.lastSeenAt,
      expiresAt: staffSessions.expiresAt,
      org: {
        suspendedAt: organizations.suspendedAt,
        isSandbox: organizations.isSandbox,
        expiresAt: organizations.expiresAt,
      },
    })
    .from(staffSessions)
    .innerJoin(organizations, eq(organizations.id, staffSessions.orgId))
    .where(eq(staffSessions.idHash, idHash))
    .limit(1);
  return row ?? null;
}

export async function touchStaffSession(db: Database, orgId: string, idHash: string, lastSeenAt: string) {
  await db
    .update(staffSessions)
    .set({ lastSeenAt })
    .where(and(eq(staffSessions.idHash, idHash), eq(staffSessions.orgId, orgId)));
}

/** By hash alone: ending a session needs only the cookie, which may belong to a lapsed session. */
export async function endStaffSession(db: Database, idHash: string) {
  await db.delete(staffSessions).where(eq(staffSessions.idHash, idHash));
}

/** Nightly clean-up of sessions nobody will present again; returns how many were removed. */
export async function deleteLapsedStaffSessions(db: Database, now: string, idleCutoff: string): Promise<number> {
  const removed = await db
    .delete(staffSessions)
    .where(or(lte(staffSessions.expiresAt, now), lte(staffSessions.lastSeenAt, idleCutoff)))
    .returning({ idHash: staffSessions.idHash });
  return removed.length;
}
