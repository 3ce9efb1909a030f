import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { getDb } from "../../src/db/client";
import { commitWithEvents } from "../../src/events/emit";
import { webhookUrlProblem } from "../../src/events/url-policy";
import { createEndpoint } from "../helpers/events";
import { createApiKey, createOrg } from "../helpers/factories";
import { objectSendsTo } from "../helpers/object-sql";
import { rowsInObject } from "../helpers/org-storage";
import { capturingQueue, consumeOne } from "../helpers/queue-driver";
import { createTestApp } from "../helpers/test-app";

/**
 * Every block of the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
 * updates), with the multicast and deprecated blocks next to them: one address inside each,
 * refused; and ordinary public unicast addresses, several just outside a block's edge, allowed.
 */
const REFUSED_IPV4: [address: string, block: string][] = [
  ["0.0.0.0", "0.0.0.0/32 this host on this network (RFC 1122)"],
  ["0.1.2.3", "0.0.0.0/8 this network (RFC 791)"],
  ["10.0.0.1", "10.0.0.0/8 private-use (RFC 1918)"],
  ["10.255.255.254", "10.0.0.0/8 private-use, last address"],
  ["100.64.0.1", "100.64.0.0/10 shared address space (RFC 6598)"],
  ["100.127.255.254", "100.64.0.0/10 shared address space, last address"],
  ["127.0.0.1", "127.0.0.0/8 loopback (RFC 1122)"],
  ["127.255.255.254", "127.0.0.0/8 loopback, last address"],
  ["169.254.169.254", "169.254.0.0/16 link local (RFC 3927), cloud metadata"],
  ["172.16.0.1", "172.16.0.0/12 private-use (RFC 1918)"],
  ["172.31.255.254", "172.16.0.0/12 private-use, last address"],
  ["192.0.0.1", "192.0.0.0/24 IETF protocol assignments (RFC 6890)"],
  ["192.0.0.2", "192.0.0.0/29 IPv4 service continuity prefix (RFC 7335)"],
  ["192.0.0.8", "192.0.0.8/32 IPv4 dummy address (RFC 7600)"],
  ["192.0.0.9", "192.0.0.9/32 port control protocol anycast (RFC 7723)"],
  ["192.0.0.10", "192.0.0.10/32 traversal using relays around NAT anycast (RFC 8155)"],
  ["192.0.0.170", "192.0.0.170/32 NAT64/DNS64 discovery (RFC 8880)"],
  ["192.0.0.171", "192.0.0.171/32 NAT64/DNS64 discovery (RFC 8880)"],
  ["192.0.2.1", "192.0.2.0/24 documentation TEST-NET-1 (RFC 5737)"],
  ["192.31.196.1", "192.31.196.0/24 AS112-v4 (RFC 7535)"],
  ["192.52.193.1", "192.52.193.0/24 AMT (RFC 7450)"],
  ["192.88.99.1", "192.88.99.0/24 deprecated 6to4 relay anycast (RFC 7526)"],
  ["192.168.1.1", "192.168.0.0/16 private-use (RFC 1918)"],
  ["192.175.48.1", "192.175.48.0/24 direct delegation AS112 service (RFC 7534)"],
  ["198.18.0.1", "198.18.0.0/15 benchmarking (RFC 2544)"],
  ["198.19.255.254", "198.18.0.0/15 benchmarking, last address"],
  ["198.51.100.1", "198.51.100.0/24 documentation TEST-NET-2 (RFC 5737)"],
  ["203.0.113.1", "203.0.113.0/24 documentation TEST-NET-3 (RFC 5737)"],
  ["224.0.0.1", "224.0.0.0/4 multicast (RFC 5771)"],
  ["239.255.255.250", "224.0.0.0/4 multicast, SSDP"],
  ["240.0.0.1", "240.0.0.0/4 reserved (RFC 1112)"],
  ["255.255.255.254", "240.0.0.0/4 reserved, last address before broadcast"],
  ["255.255.255.255", "255.255.255.255/32 limited broadcast (RFC 919)"],
];

const ALLOWED_IPV4: [address: string, note: string][] = [
  ["8.8.8.8", "public unicast"],
  ["1.1.1.1", "public unicast"],
  ["9.255.255.255", "just below 10.0.0.0/8"],
  ["11.0.0.0", "just above 10.0.0.0/8"],
  ["100.63.255.255", "just below 100.64.0.0/10"],
  ["100.128.0.0", "just above 100.64.0.0/10"],
  ["126.255.255.255", "just below 127.0.0.0/8"],
  ["128.0.0.0", "just above 127.0.0.0/8"],
  ["169.253.255.255", "just below 169.254.0.0/16"],
  ["169.255.0.0", "just above 169.254.0.0/16"],
  ["172.15.255.255", "just below 172.16.0.0/12"],
  ["172.32.0.0", "just above 172.16.0.0/12"],
  ["192.0.1.0", "between 192.0.0.0/24 and 192.0.2.0/24"],
  ["192.167.255.255", "just below 192.168.0.0/16"],
  ["192.169.0.0", "just above 192.168.0.0/16"],
  ["198.17.255.255", "just below 198.18.0.0/15"],
  ["198.20.0.0", "just above 198.18.0.0/15"],
  ["223.255.255.255", "just below 224.0.0.0/4"],
];

const REFUSED_IPV6: [address: string, block: string][] = [
  ["::", "::/128 unspecified (RFC 4291)"],
  ["::1", "::1/128 loopback (RFC 4291)"],
  ["::127.0.0.1", "::/96 IPv4-compatible (deprecated, RFC 4291), carrying loopback"],
  ["::8.8.8.8", "::/96 IPv4-compatible (deprecated, RFC 4291): never routed, whatever it carries"],
  ["::ffff:127.0.0.1", "::ffff:0:0/96 IPv4-mapped (RFC 4291), carrying loopback"],
  ["::ffff:10.0.0.1", "::ffff:0:0/96 IPv4-mapped, carrying private-use"],
  ["::ffff:169.254.169.254", "::ffff:0:0/96 IPv4-mapped, carrying link local"],
  ["::ffff:0:7f00:1", "::ffff:0:0:0/96 IPv4-translated (RFC 6145), carrying loopback"],
  ["64:ff9b::7f00:1", "64:ff9b::/96 IPv4-IPv6 translation (RFC 6052), carrying loopback"],
  ["64:ff9b::a00:1", "64:ff9b::/96 IPv4-IPv6 translation, carrying private-use"],
  ["64:ff9b:1::1", "64:ff9b:1::/48 local-use IPv4/IPv6 translation (RFC 8215)"],
  ["100::1", "100::/64 discard-only (RFC 6666)"],
  ["100:0:0:1::1", "100:0:0:1::/64 dummy IPv6 prefix (RFC 9780)"],
  ["2001::1", "2001::/23 IETF protocol assignments (RFC 2928)"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::/32 Teredo (RFC 4380)"],
  ["2001:1::1", "2001:1::1/128 port control protocol anycast (RFC 7723)"],
  ["2001:1::2", "2001:1::2/128 TURN anycast (RFC 8155)"],
  ["2001:1::3", "2001:1::3/128 DNS-SD service registration protocol anycast (RFC 9665)"],
  ["2001:2::1", "2001:2::/48 benchmarking (RFC 5180)"],
  ["2001:3::1", "2001:3::/32 AMT (RFC 7450)"],
  ["2001:4:112::1", "2001:4:112::/48 AS112-v6 (RFC 7535)"],
  ["2001:10::1", "2001:10::/28 deprecated ORCHID (RFC 4843)"],
  ["2001:20::1", "2001:20::/28 ORCHIDv2 (RFC 7343)"],
  ["2001:30::1", "2001:30::/28 drone remote ID entity tags (RFC 9374)"],
  ["2001:db8::1", "2001:db8::/32 documentation (RFC 3849)"],
  ["2002:7f00:1::", "2002::/16 6to4 (RFC 3056), carrying loopback"],
  ["2002:c0a8:101::1", "2002::/16 6to4, carrying private-use"],
  ["2620:4f:8000::1", "2620:4f:8000::/48 direct delegation AS112 service (RFC 7534)"],
  ["3fff::1", "3fff::/20 documentation (RFC 9637)"],
  ["5f00::1", "5f00::/16 segment routing SIDs (RFC 9602)"],
  ["fc00::1", "fc00::/7 unique-local (RFC 4193)"],
  ["fdff:ffff::1", "fc00::/7 unique-local, upper half"],
  ["fe80::1", "fe80::/10 link-local unicast (RFC 4291)"],
  ["febf::1", "fe80::/10 link-local unicast, last /16"],
  ["fec0::1", "fec0::/10 site-local (deprecated, RFC 3879)"],
  ["ff02::1", "ff00::/8 multicast (RFC 4291)"],
  ["4000::1", "outside 2000::/3, the only block IANA allocates for global unicast"],
];

const ALLOWED_IPV6: [address: string, note: string][] = [
  ["2606:4700:4700::1111", "public unicast"],
  ["2001:4860:4860::8888", "public unicast"],
  ["2001:200::1", "just above 2001::/23"],
  ["2620:4f:8001::1", "just above 2620:4f:8000::/48"],
  ["3fff:1000::1", "just above 3fff::/20"],
  ["::ffff:8.8.8.8", "IPv4-mapped, carrying public unicast"],
  ["64:ff9b::808:808", "IPv4-IPv6 translation, carrying public unicast"],
  ["2002:808:808::1", "6to4, carrying public unicast"],
];

const bracketed = (address: string) => `[${address}]`;
const FLAGS = [true, false] as const;

describe("the IANA special-purpose address registries", () => {
  for (const allowLocalhost of FLAGS) {
    describe(`WEBHOOK_ALLOW_LOCALHOST ${allowLocalhost}`, () => {
      it.each(REFUSED_IPV4)("refuses %s (%s)", (address) => {
        expect(webhookUrlProblem(`https://${address}/hook`, allowLocalhost)).toMatch(/^must not point at/);
      });
      it.each(ALLOWED_IPV4)("allows %s (%s)", (address) => {
        expect(webhookUrlProblem(`https://${address}/hook`, allowLocalhost)).toBeNull();
      });
      it.each(REFUSED_IPV6)("refuses [%s] (%s)", (address) => {
        expect(webhookUrlProblem(`https://${bracketed(address)}/hook`, allowLocalhost)).toMatch(/^must not point at/);
      });
      it.each(ALLOWED_IPV6)("allows [%s] (%s)", (address) => {
        expect(webhookUrlProblem(`https://${bracketed(address)}/hook`, allowLocalhost)).toBeNull();
      });
    });
  }
});

/** Host names that name this machine or a private network, however they are spelled. */
const REFUSED_NAMES = [
  "localhost.",
  "LOCALHOST",
  "api.localhost.",
  "metadata.google.internal.",
  "printer.local.",
  "intranet.",
  "intranet",
  "nas.lan.",
  "router.home.arpa.",
  "x.invalid",
  // Fullwidth letters and the ideographic full stop: the URL parser's IDNA mapping makes them localhost / 127.0.0.1.
  "ｌｏｃａｌｈｏｓｔ",
  "127。0。0。1",
  "127.0.0.1.",
  "0x7f.1",
  "2130706433",
  "localhost..",
];

describe("host names are normalised before they are judged", () => {
  for (const allowLocalhost of FLAGS) {
    it.each(REFUSED_NAMES)(`refuses https://%s/ (WEBHOOK_ALLOW_LOCALHOST ${allowLocalhost})`, (host) => {
      expect(webhookUrlProblem(`https://${host}/hook`, allowLocalhost)).toMatch(/^must/);
    });
  }

  it.each(["hooks.example.com", "HOOKS.Example.COM.", "bücher.example.", "xn--bcher-kva.example"])("allows https://%s/", (host) => {
    expect(webhookUrlProblem(`https://${host}/hook`, false)).toBeNull();
  });

  it("allows http to this machine only with the development flag, and only by its two names", () => {
    for (const url of ["http://localhost:9000/hook", "http://localhost.:9000/hook", "http://127.0.0.1:9000/hook"]) {
      expect(webhookUrlProblem(url, true), url).toBeNull();
      expect(webhookUrlProblem(url, false), url).not.toBeNull();
    }
    for (const url of ["http://[::1]:9000/hook", "http://10.0.0.1/hook", "http://printer.local/hook", "https://localhost/hook"]) {
      expect(webhookUrlProblem(url, true), url).not.toBeNull();
    }
  });

  it("refuses this machine by any other spelling for where it points, not its scheme, and names the local allowance", () => {
    for (const allowLocalhost of FLAGS) {
      for (const url of ["http://[::1]:9000/hook", "https://[::1]/hook", "http://127.0.0.2:9000/hook", "https://localhost/hook"]) {
        const problem = webhookUrlProblem(url, allowLocalhost);
        expect(problem, url).toMatch(/^must not point at this machine/);
        expect(problem, url).toContain(
          "in local development only http://localhost and http://127.0.0.1 are allowed, with WEBHOOK_ALLOW_LOCALHOST=true",
        );
      }
      expect(webhookUrlProblem("http://localhost:9000/hook", false)).toContain("WEBHOOK_ALLOW_LOCALHOST=true");
    }
    // Where it points is fine, the scheme is not: the scheme is the reason.
    expect(webhookUrlProblem("http://[2606:4700:4700::1111]/hook", true)).toBe("must use https");
    expect(webhookUrlProblem("http://8.8.8.8/hook", true)).toBe("must use https");
    for (const url of ["ftp://8.8.8.8/hook", "ftp://[2606:4700:4700::1111]/hook"]) expect(webhookUrlProblem(url, true), url).toBe("must use https");
  });
});

/** The URLs the hostile run registered: refused on create and on update, with the flag on and off. */
const HOSTILE_URLS = [
  "https://localhost./",
  "https://metadata.google.internal./",
  "https://printer.local./",
  "https://intranet./",
  "https://[::127.0.0.1]/",
  "https://[64:ff9b::7f00:1]/",
  "https://[2002:7f00:1::]/",
  "https://[fec0::1]/",
  "https://192.0.0.1/",
];

describe("through the API", () => {
  for (const allowLocalhost of FLAGS) {
    it(`refuses the hostile run's URLs on create and update (WEBHOOK_ALLOW_LOCALHOST ${allowLocalhost})`, async () => {
      const org = await createOrg();
      const { key } = await createApiKey(org.id);
      const { request } = createTestApp(undefined, { ...env, WEBHOOK_ALLOW_LOCALHOST: String(allowLocalhost) });
      const send = (method: string, path: string, body: unknown) =>
        request(path, { method, headers: { "Content-Type": "application/json", "X-Service-API-Key": key }, body: JSON.stringify(body) });
      const endpoint = await createEndpoint(key, { url: "https://hooks.example.com/ok", events: ["deal.stip_alert"] });

      for (const url of HOSTILE_URLS) {
        for (const res of [
          await send("POST", "/api/v1/webhooks", { url, events: ["deal.stip_alert"] }),
          await send("PATCH", `/api/v1/webhooks/${endpoint.id}`, { url }),
        ]) {
          expect(res.status, url).toBe(422);
          expect(await res.json(), url).toMatchObject({ details: [{ path: "url", code: "invalid_url" }] });
        }
      }
      expect(await rowsInObject(org.id, "SELECT url FROM webhook_endpoints WHERE org_id = ?", org.id)).toEqual([
        { url: "https://hooks.example.com/ok" },
      ]);
    });
  }
});

describe("on every send", () => {
  it("a stored URL that breaks the rules is never fetched by /test, /trigger or a real delivery; each refusal names the rule", async () => {
    const org = await createOrg();
    const { key } = await createApiKey(org.id);
    const endpoint = await createEndpoint(key, { url: "https://hooks.example.com/ok", events: ["deal.stip_alert"] });
    // As a row stored before a rule existed, or written by a migration, would be.
    await rowsInObject(org.id, "UPDATE webhook_endpoints SET url = 'https://10.1.2.3/hook' WHERE id = ?", endpoint.id);
    const fetched = vi.spyOn(globalThis, "fetch").mockResolvedValue(new Response("ok"));
    const queue = capturingQueue();
    const { request } = createTestApp(undefined, queue.env);
    // The sample is queued from the organization's object, on the same capturing queue.
    const restore = await objectSendsTo(org.id, queue.env.WEBHOOKS);
    const send = (path: string, body: unknown) =>
      request(path, { method: "POST", headers: { "Content-Type": "application/json", "X-Service-API-Key": key }, body: JSON.stringify(body) });
    const rule = /Not sent: the URL must not point at a private address/;
    try {
      const test = await send(`/api/v1/webhooks/${endpoint.id}/test`, {});
      expect(test.status).toBe(200);
      expect(await test.json()).toMatchObject({ delivered: false, response_status: null, error: expect.stringMatching(rule) });

      expect((await send(`/api/v1/webhooks/${endpoint.id}/trigger`, { event: "deal.stip_alert" })).status).toBe(202);
      await commitWithEvents(queue.env, getDb(env.DB), [], [{ event: "deal.stip_alert", orgId: org.id, storeId: null, data: {} }], new Date());
      await consumeOne(queue.env, queue.sent.splice(1, 1)[0], 1);
      const deliveryMessages = queue.sent.splice(0);
      expect(deliveryMessages).toHaveLength(2);
      // Refused at once, never retried: no retry can change the URL; fixing it and redelivering can.
      for (const message of deliveryMessages) expect(await consumeOne(queue.env, message, 1)).toEqual({ acked: true, retry: null });

      const { deliveries } = await (await request(`/api/v1/webhooks/${endpoint.id}/deliveries`, { headers: { "X-Service-API-Key": key } })).json<{
        deliveries: { status: string; last_error: string; attempts: { outcome: string; error: string; response_status: number | null }[] }[];
      }>();
      expect(deliveries).toHaveLength(2);
      for (const delivery of deliveries) {
        expect(delivery).toMatchObject({ status: "failed", last_error: expect.stringMatching(rule) });
        expect(delivery.attempts).toEqual([
          expect.objectContaining({ outcome: "failed", response_status: null, error: expect.stringMatching(rule) }),
        ]);
      }
      expect(fetched.mock.calls.filter(([input]) => String(input instanceof Request ? input.url : input).includes("10.1.2.3"))).toEqual([]);
    } finally {
      fetched.mockRestore();
      await restore();
    }
  });
});
