/**
 * Moves an organization's data between D1 and its own storage object (docs/scaling.md), through
 * the operator API of a running Worker:
 *
 *   npm run storage -- move <org_id>                      into its object, on the server `npm run dev` started
 *   npm run storage -- move --all                         every organization still in D1, one after another
 *   npm run storage -- undo <org_id>                      back to D1, within the undo window (ORG_STORAGE_UNDO_WINDOW_DAYS;
 *                                                         after it D1's copy is purged and the undo refused, saying when)
 *   npm run storage -- cancel <org_id>                    abandons a move that has not switched over (D1 keeps serving)
 *   npm run storage -- move <org_id> --remote <base url>  a deployed Worker, with OPERATOR_TOKEN set (--all too)
 *
 * A move copies while the organization's writes go on, catches up with what they changed, then
 * pauses its writes briefly for the last changes, verifies (rows and a SHA-256 per table) and flips
 * the flag. Each request works up to 20 s and answers with its progress; this command calls again
 * until the move is done (a move stopped by a failure goes on where it stopped when run again).
 * Prints the digests of both sides and the write pause; `--all` prints a line per organization
 * moved and a summary, skips those already in their objects, and stops at the first failure.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { CREDENTIALS_FILE } from "./lib/demo-seed";
import { MoveAllStopped, moveAll, movedLine, type OperatorApi, runStorageCommand, type StorageCommand } from "./lib/storage-moves";

const USAGE =
  "usage: npm run storage -- <move|undo|cancel> <org_id> [--remote <base url>]\n       npm run storage -- move --all [--remote <base url>]   (remote: OPERATOR_TOKEN=dot_… in the environment)";

function target(remote: string | undefined): OperatorApi {
  if (remote !== undefined) {
    const token = process.env.OPERATOR_TOKEN;
    if (!token) throw new Error(`--remote needs the operator token in OPERATOR_TOKEN.\n${USAGE}`);
    return { baseUrl: remote.replace(/\/+$/, ""), token };
  }
  if (!existsSync(CREDENTIALS_FILE)) throw new Error("No demo-credentials.json: start the local server with `npm run dev` first.");
  const file = JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as { base_url: string; operator_token: string };
  return { baseUrl: file.base_url, token: file.operator_token };
}

const showProgress = (orgId: string, step: string) => console.error(`${orgId}: moving, at ${step}…`);

async function moveEveryOrganization(api: OperatorApi, remote: string | undefined): Promise<void> {
  try {
    const { moved, skipped } = await moveAll(api, (org) => console.log(movedLine(org)), showProgress);
    console.log(`Moved ${moved.length} organization(s) into their objects; ${skipped} already there, skipped.`);
  } catch (error) {
    if (!(error instanceof MoveAllStopped)) throw error;
    const again = `npm run storage -- move --all${remote === undefined ? "" : ` --remote ${remote}`}`;
    throw new Error(
      `${error.message}\nStopped after moving ${error.moved.length} organization(s). Run \`${again}\` again: the moved ones are skipped, and ${error.orgId}'s move goes on where it stopped (or \`npm run storage -- cancel ${error.orgId}\` abandons it).`,
    );
  }
}

async function main() {
  const { values, positionals } = parseArgs({
    options: { remote: { type: "string" }, all: { type: "boolean", default: false } },
    allowPositionals: true,
    strict: true,
  });
  const [command, orgId] = positionals;
  if (values.all) {
    if (command !== "move" || positionals.length !== 1) throw new Error(USAGE);
    return moveEveryOrganization(target(values.remote), values.remote);
  }
  if (!["move", "undo", "cancel"].includes(command ?? "") || !orgId || positionals.length !== 2) throw new Error(USAGE);
  const answer = await runStorageCommand(target(values.remote), command as StorageCommand, orgId, (step) => showProgress(orgId, step));
  console.log(JSON.stringify(answer, null, 2));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
