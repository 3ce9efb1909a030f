/**
 * A webhook receiver on 127.0.0.1, started once for the test run (vitest globalSetup, in Node),
 * that the Worker under test delivers to for real. Behaviour by path:
 * `POST /hook/<behaviour>/<name>` where behaviour is `ok` (204), `fail-twice` (500, 500, then 200),
 * `always-fail` (503, "receiver says hi"), `gone` (410), `redirect` (302 to /hook/ok/<name>),
 * `long-answer` (200 with 6001 bytes of UTF-8 text: "a" then 3000 "é"), `binary-answer` (200 with
 * 2048 bytes of application/octet-stream) or `slow-then-fail` (the first two answers: 200 after
 * SLOW_ANSWER_MS, too late for a sender with a shorter timeout; then 500).
 * `PUT /secret/<name>` with the `whsec_` secret makes the receiver verify signatures for <name>;
 * `GET /log/<name>` lists what <name> received, each with `verified` (signature and ±300 s checked).
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

declare module "vitest" {
  export interface ProvidedContext {
    webhookReceiverUrl: string;
  }
}

export interface ReceivedDelivery {
  behaviour: string;
  status: number;
  headers: Record<string, string>;
  body: string;
  verified: boolean;
}

const TOLERANCE_SECONDS = 300;
/** How long `slow-then-fail` holds its first answers; tests shorten the delivery timeout below it. */
const SLOW_ANSWER_MS = 4_000;

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

/** What a partner's receiver does (docs/webhooks.md): timestamp window, then HMAC compared in constant time. */
export function verifySignature(secret: string, headers: Record<string, string>, body: string, nowSeconds: number): boolean {
  const id = headers["x-service-webhook-id"];
  const timestamp = Number(headers["x-service-webhook-timestamp"]);
  const signature = headers["x-service-signature"] ?? "";
  if (!id || !Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(`sha256=${createHmac("sha256", secret).update(`${id}.${timestamp}.${body}`).digest("hex")}`);
  // During a secret rotation the header holds two values, space-separated: either may match.
  return signature.split(" ").some((value) => {
    const given = Buffer.from(value);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

export default async function setup(project: TestProject) {
  const secrets = new Map<string, string>();
  const logs = new Map<string, ReceivedDelivery[]>();

  const server = createServer(async (req, res) => {
    const body = await readBody(req);
    const [, route, a, b] = (req.url ?? "").split("/");
    if (req.method === "PUT" && route === "secret") {
      secrets.set(a, body);
      res.writeHead(204).end();
      return;
    }
    if (req.method === "GET" && route === "log") {
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(logs.get(a) ?? []));
      return;
    }
    if (req.method !== "POST" || route !== "hook" || !b) {
      res.writeHead(404).end();
      return;
    }
    const behaviour = a;
    const name = b;
    const received = logs.get(name) ?? [];
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const secret = secrets.get(name);
    const verified = secret !== undefined && verifySignature(secret, headers, body, Math.floor(Date.now() / 1000));
    const status =
      behaviour === "ok"
        ? 204
        : behaviour === "fail-twice"
          ? received.length < 2
            ? 500
            : 200
          : behaviour === "gone"
            ? 410
            : behaviour === "redirect"
              ? 302
              : 503;
    if (behaviour === "slow-then-fail") {
      const slow = received.length < 2;
      received.push({ behaviour, status: slow ? 200 : 500, headers, body, verified });
      logs.set(name, received);
      if (slow) setTimeout(() => res.writeHead(200).end("too late"), SLOW_ANSWER_MS);
      else res.writeHead(500).end("receiver says hi");
      return;
    }
    if (behaviour === "long-answer" || behaviour === "binary-answer") {
      received.push({ behaviour, status: 200, headers, body, verified });
      logs.set(name, received);
      if (behaviour === "long-answer") res.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" }).end(`a${"é".repeat(3000)}`);
      else res.writeHead(200, { "Content-Type": "application/octet-stream" }).end(Buffer.alloc(2048, 7));
      return;
    }
    received.push({ behaviour, status, headers, body, verified });
    logs.set(name, received);
    res.writeHead(status, status === 302 ? { Location: `/hook/ok/${name}` } : {}).end(status === 204 ? undefined : "receiver says hi");
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  project.provide("webhookReceiverUrl", `http://127.0.0.1:${port}`);
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}
