/**
 * The operator's storage commands over HTTP (docs/scaling.md#how-an-organization-moves-d1--its-object):
 * one organization's move, undo or cancel driven until done, and every organization still in D1
 * moved one after another (`npm run storage -- move --all`, and `npm run dev` after its seed).
 * No Node APIs: a workerd test drives it through the Worker's own fetch.
 */

export interface OperatorApi {
  baseUrl: string;
  token: string;
  /** The Worker's fetch in a test; the global one otherwise. */
  fetch?: (request: Request) => Promise<Response>;
}

export type StorageCommand = "move" | "undo" | "cancel";

/** What a storage command answers (the StorageMove and StorageMoveCancel schemas of src/routes/operator/operator.routes.ts). */
export interface StorageAnswer {
  org_id: string;
  storage: string;
  done?: boolean;
  step?: string;
  tables?: Record<string, { rows: number; sha256: string }>;
  write_pause_ms?: number;
  cancelled?: boolean;
}

/** A refusal in its own words (e.g. "The D1 copy was purged on …"), else the body as it came. */
function refusal(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    return typeof message === "string" ? message : body;
  } catch {
    return body;
  }
}

async function request<T>(api: OperatorApi, method: "GET" | "POST", path: string): Promise<T> {
  const res = await (api.fetch ?? fetch)(new Request(`${api.baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${api.token}` } }));
  const body = await res.text();
  if (!res.ok) throw new Error(`${res.status}: ${refusal(body)}`);
  return JSON.parse(body) as T;
}

/** An answer of `done: false` this quick came from a request that found another working on the move: wait before asking again. */
const QUICK_MS = 1_000;

/**
 * One command for one organization, called again while a move under way answers `done: false`
 * (each call goes on where the last stopped); `onProgress` hears where it stands.
 */
export async function runStorageCommand(
  api: OperatorApi,
  command: StorageCommand,
  orgId: string,
  onProgress: (step: string) => void = () => {},
): Promise<StorageAnswer> {
  for (;;) {
    const sent = Date.now();
    const answer = await request<StorageAnswer>(api, "POST", `/api/operator/organizations/${encodeURIComponent(orgId)}/storage/${command}`);
    if (answer.done !== false) return answer;
    onProgress(answer.step ?? "");
    if (Date.now() - sent < QUICK_MS) await new Promise((resolve) => setTimeout(resolve, QUICK_MS));
  }
}

/** Where an organization's data is (GET /api/operator/organizations: `storage`). */
interface ListedOrganization {
  id: string;
  storage: "d1" | "moving" | "object" | "returning";
}

export interface MovedOrganization {
  org_id: string;
  rows: number;
  tables: number;
  write_pause_ms: number;
}

/** One line for a moved organization: what it moved and how long its writes waited. */
export const movedLine = (moved: MovedOrganization) =>
  `${moved.org_id}: moved ${moved.rows.toLocaleString("en-US")} rows in ${moved.tables} tables, write pause ${moved.write_pause_ms} ms`;

/** A move of `--all` that failed: the ones before it moved, it and the ones after it not yet. */
export class MoveAllStopped extends Error {
  constructor(
    readonly orgId: string,
    readonly moved: MovedOrganization[],
    cause: unknown,
  ) {
    super(`${orgId}: ${cause instanceof Error ? cause.message : String(cause)}`);
  }
}

/**
 * Every organization not in its object (sandboxes too), moved one after another, each driven to its
 * end as `move` is; one already in its object is skipped, so running it again after a stop goes on
 * with the first organization not moved (whose own move goes on where it stopped). A failure stops
 * it (MoveAllStopped): the next organizations wait for the operator.
 */
export async function moveAll(
  api: OperatorApi,
  onMoved: (moved: MovedOrganization) => void = () => {},
  onProgress: (orgId: string, step: string) => void = () => {},
): Promise<{ moved: MovedOrganization[]; skipped: number }> {
  const { organizations } = await request<{ organizations: ListedOrganization[] }>(api, "GET", "/api/operator/organizations?include_sandboxes=true");
  const moved: MovedOrganization[] = [];
  let skipped = 0;
  for (const org of organizations) {
    if (org.storage === "object") {
      skipped++;
      continue;
    }
    let answer: StorageAnswer;
    try {
      answer = await runStorageCommand(api, "move", org.id, (step) => onProgress(org.id, step));
    } catch (error) {
      throw new MoveAllStopped(org.id, moved, error);
    }
    const tables = Object.values(answer.tables ?? {});
    const done = {
      org_id: org.id,
      rows: tables.reduce((sum, table) => sum + table.rows, 0),
      tables: tables.length,
      write_pause_ms: answer.write_pause_ms ?? 0,
    };
    moved.push(done);
    onMoved(done);
  }
  return { moved, skipped };
}
