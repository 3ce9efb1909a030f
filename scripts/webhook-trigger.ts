/**
 * `npm run webhook:trigger`: sends a sample of an event to your local endpoints, as `stripe trigger`
 * does, through `POST /api/v1/webhooks/{id}/trigger` on the server `npm run dev` started, with the
 * demo key it wrote to demo-credentials.json.
 *
 *   npm run webhook:trigger -- --event deal.stip_alert                      every enabled endpoint subscribed to it
 *   npm run webhook:trigger -- --event deal.stip_alert --endpoint whk_…     that endpoint, subscribed or not
 *   … --org org_lakeside                                                    another demo organization (default: the first)
 *
 * Then it waits up to 15 s for each delivery's first attempt and prints what the receiver answered.
 */
import { existsSync, readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { createDealerIntelClient, DealerIntelError, unwrap } from "../clients/typescript/src";
import { EVENT_NAMES, type EventName } from "../src/events/emit";
import { CREDENTIALS_FILE } from "./lib/demo-seed";

const USAGE = `usage: npm run webhook:trigger -- --event <${EVENT_NAMES.join("|")}> [--endpoint <whk_ id>] [--org <org id>]`;
const WAIT_MS = 15_000;

class UsageError extends Error {}

interface DemoCredentialsFile {
  base_url: string;
  orgs: { org_id: string; api_key: string }[];
}

function readCredentials(orgId: string | undefined) {
  if (!existsSync(CREDENTIALS_FILE)) throw new UsageError("No demo-credentials.json: start the local server with `npm run dev` first.");
  const file = JSON.parse(readFileSync(CREDENTIALS_FILE, "utf8")) as DemoCredentialsFile;
  const org = orgId === undefined ? file.orgs[0] : file.orgs.find((o) => o.org_id === orgId);
  if (!org) throw new UsageError(`No demo organization ${orgId}; demo-credentials.json has ${file.orgs.map((o) => o.org_id).join(", ")}.`);
  return { baseUrl: file.base_url, org };
}

function parseEvent(value: string | undefined): EventName {
  if (!value) throw new UsageError("--event is required.");
  if (!(EVENT_NAMES as readonly string[]).includes(value)) throw new UsageError(`Unknown event "${value}".`);
  return value as EventName;
}

async function main() {
  const { values } = parseArgs({ options: { event: { type: "string" }, endpoint: { type: "string" }, org: { type: "string" } } });
  const event = parseEvent(values.event);
  const { baseUrl, org } = readCredentials(values.org);
  const api = createDealerIntelClient({ baseUrl, apiKey: org.api_key });

  let endpointIds: string[];
  if (values.endpoint) endpointIds = [values.endpoint];
  else {
    const { data } = await unwrap(api.GET("/api/v1/webhooks"));
    endpointIds = data.endpoints.filter((e) => e.enabled && e.events.includes(event)).map((e) => e.id);
    if (endpointIds.length === 0) {
      throw new UsageError(
        `${org.org_id} has no enabled endpoint subscribed to ${event}. Register one (README, "Webhooks") or name one with --endpoint.`,
      );
    }
  }

  for (const id of endpointIds) {
    const { data: queued } = await unwrap(api.POST("/api/v1/webhooks/{id}/trigger", { params: { path: { id } }, body: { event } }));
    console.log(`${event} sample → ${id}: queued as ${queued.id} (event ${queued.event_id})`);
    const deadline = Date.now() + WAIT_MS;
    for (;;) {
      const { data } = await unwrap(api.GET("/api/v1/webhooks/{id}/deliveries", { params: { path: { id }, query: { limit: 20 } } }));
      const delivery = data.deliveries.find((d) => d.id === queued.id);
      const attempt = delivery?.attempts.at(-1);
      if (delivery && attempt) {
        const answer = attempt.response_status === null ? attempt.error : `HTTP ${attempt.response_status}`;
        const preview = attempt.response_body ? `: ${JSON.stringify(attempt.response_body.slice(0, 200))}` : "";
        console.log(`  attempt ${attempt.attempt}: ${answer} in ${attempt.duration_ms} ms${preview} → ${delivery.status}`);
        break;
      }
      if (Date.now() > deadline) {
        console.log(`  no attempt within ${WAIT_MS / 1000} s; see GET /api/v1/webhooks/${id}/deliveries`);
        break;
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

main().catch((error: unknown) => {
  if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
  else if (error instanceof DealerIntelError) console.error(`${error.status} ${error.error}: ${error.message}`);
  else if (error instanceof TypeError) console.error(`Could not reach the local server (${error.message}): is \`npm run dev\` running?`);
  else console.error(error);
  process.exit(1);
});
