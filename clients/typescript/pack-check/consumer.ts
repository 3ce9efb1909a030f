/**
 * An integrator's first program, for `npm run test:client-pack` (scripts/client-pack-check.ts):
 * it is copied into an empty project that installed the packed client, type-checked there under
 * `module`/`moduleResolution: nodenext` with `strict`, compiled, and run in plain Node. It is not
 * compiled in this repository (it imports the installed package, not ../src).
 */
import { createHmac } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createDealerIntelClient, DealerIntelError, unwrap, verifyWebhook, type WebhookEvent } from "@dealer-intel/client";
import clientPackage from "@dealer-intel/client/package.json" with { type: "json" };

const KEY = "lak_pack_check";
const SECRET = "whsec_pack-check-secret";

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`client pack check failed: ${what}`);
}

// The API, as far as this program needs it: one feed behind the key header, with the quota headers.
const server = createServer((request, response) => {
  if (request.url !== "/api/v1/inventory") return response.writeHead(404).end();
  if (request.headers["x-service-api-key"] !== KEY) {
    response.writeHead(401, { "Content-Type": "application/json", "X-Request-Id": "req_unauthorized" });
    return response.end(JSON.stringify({ error: "unauthorized", message: "The key is not valid.", request_id: "req_unauthorized" }));
  }
  response.writeHead(200, {
    "Content-Type": "application/json",
    "X-Request-Id": "req_inventory",
    "X-Service-RateLimit-Limit": "1000",
    "X-Service-RateLimit-Remaining": "999",
    "X-Service-RateLimit-Reset": String(Date.UTC(2026, 10, 27) / 1000),
  });
  response.end(JSON.stringify({ count: 1, inventory: [{ stock_number: "S24117" }] }));
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

try {
  const api = createDealerIntelClient({ baseUrl, apiKey: KEY, retry: { retries: 0 } });
  const { data, quota, requestId } = await unwrap(api.GET("/api/v1/inventory"));
  const stockNumbers: string[] = data.inventory.map((unit) => unit.stock_number);
  check(stockNumbers.join() === "S24117", `inventory read through the client (got ${stockNumbers.join()})`);
  check(quota?.remaining === 999 && requestId === "req_inventory", "quota and request id read from the headers");

  const refused = await unwrap(createDealerIntelClient({ baseUrl, apiKey: "lak_wrong", retry: { retries: 0 } }).GET("/api/v1/inventory")).then(
    () => null,
    (error: unknown) => error,
  );
  check(refused instanceof DealerIntelError && refused.status === 401 && refused.error === "unauthorized", "a 401 becomes a DealerIntelError");

  const envelope = {
    id: "evt_pack_check",
    event: "webhook.test",
    org_id: "org_pack_check",
    store_id: null,
    timestamp: new Date().toISOString(),
    data: { message: "A test event from Dealer Intelligence. No action is needed." },
  };
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.now() / 1000);
  const signature = `sha256=${createHmac("sha256", SECRET).update(`${envelope.id}.${timestamp}.${body}`).digest("hex")}`;
  const headers = { "x-service-webhook-id": envelope.id, "x-service-webhook-timestamp": String(timestamp), "x-service-signature": signature };
  const event: WebhookEvent = await verifyWebhook(SECRET, headers, body);
  check(event.event === "webhook.test" && event.data.message === envelope.data.message, "a signed webhook.test verified");
  const forged = await verifyWebhook("whsec_someone-else", headers, body).then(
    () => "verified",
    (error: Error) => error.name,
  );
  check(forged === "WebhookVerificationError", "a delivery signed with another secret refused");

  console.log(`${clientPackage.name}@${clientPackage.version} on Node ${process.version}: call, error and webhook verification work`);
} finally {
  server.close();
}

/** Never called: compiling it proves the paths and bodies are typed from the document, not `any`. */
export function typedFromTheDocument(api: ReturnType<typeof createDealerIntelClient>) {
  // @ts-expect-error the API has no such path
  api.GET("/api/v1/no-such-feed");
  // @ts-expect-error mileage is a number
  api.POST("/api/v1/trade-appraisal", { body: { make: "Toyota", model: "Camry", year: 2021, mileage: "48200" } });
}
