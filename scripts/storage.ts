/**
 * Moves an organization's data between D1 and its own storage object (docs/scaling.md), through
 * the operator API of a running Worker:
 *
 *   npm run storage -- move <org_id>                      into its object, on the server `npm run dev` started
 *   npm run storage -- undo <org_id>                      back to D1, within the undo window (ORG_STORAGE_UNDO_WINDOW_DAYS;
 *                                                         after it D1's copy is purged and the undo refused, saying when)
 *   npm run storage -- cancel <org_id>                    abandons a move that has not switched over (D1 keeps serving)
 *   npm run storage -- move <org_id> --remote <base url>  a deployed Worker, with OPERATOR_TOKEN set
 *
 * A move copies while the organization's writes go on, catches up with what they changed, then
 * pauses its writes briefly for the last changes, verifies (rows and a SHA-256 per table) and flips
 * the flag. Each request works up to 20 s and answers with its progress; this command calls again
 * until the move is done (a move stopped by a failure goes on where it stopped when run again).
 * Prints the digests of both sides and the write pause.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CREDENTIALS_FILE } from "./lib/demo-seed";

const USAGE = "usage: npm run storage -- <move|undo|cancel> <org_id> [--remote <base url>]   (remote: OPERATOR_TOKEN=dot_… in the environment)";

function target(remote: string | undefined): { baseUrl: string; token: string } {
  if (remote !== undefined) {
    const token = process.env.OPERATOR_TOKEN;
    if (!token) throw new Error(`--remote needs the operator token in OPERATOR_TOKEN.\n${USAGE}`);
    return { baseUrl: remote.replace(/\/+$/, ""), token };
  }
  if (!existsSync(CREDENTIALS_FILE)) throw new Error("No demo-credentials.json: start the local server with `npm run dev` first.");
  const file = JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as { base_url: string; operator_token: string };
  return { baseUrl: file.base_url, token: file.operator_token };
}

function refusal(body: string): string {
  try {
    const { message } = JSON.parse(body) as { message?: unknown };
    return typeof message === "string" ? message : body;
  } catch {
    return body;
  }
}

async function main() {
  const { values, positionals } = parseArgs({ options: { remote: { type: "string" } }, allowPositionals: true, strict: true });
  const [command, orgId] = positionals;
  if (!["move", "undo", "cancel"].includes(command ?? "") || !orgId || positionals.length !== 2) throw new Error(USAGE);
  const { baseUrl, token } = target(values.remote);
  for (;;) {
    const res = await fetch(`${baseUrl}/api/operator/organizations/${encodeURIComponent(orgId)}/storage/${command}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}` },
    });
    const body = await res.text();
    // A refusal in its own words (e.g. "The D1 copy was purged on …"), else the body as it came.
    if (!res.ok) throw new Error(`${res.status}: ${refusal(body)}`);
    const answer = JSON.parse(body) as { done?: boolean; step?: string };
    // A move under way answers its progress: called again, it goes on where it stopped.
    if (answer.done === false) {
      console.error(`moving: at ${answer.step}…`);
      continue;
    }
    console.log(JSON.stringify(answer, null, 2));
    return;
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
