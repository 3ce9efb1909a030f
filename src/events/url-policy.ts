import ipaddr from "ipaddr.js";

/**
 * Where a webhook may point (SSRF rules, docs/webhooks.md#url-rules): https only, no user or
 * password in the URL, no IP literal in any IANA special-purpose block, no internal name.
 * `http://localhost` and `http://127.0.0.1` are allowed only when the development flag
 * (WEBHOOK_ALLOW_LOCALHOST) is on, so `npm run dev` can deliver to a receiver on the same machine.
 * Names are checked as written: the Workers runtime gives no DNS answer to check before fetching.
 *
 * The host is judged after the WHATWG URL parser has normalised it (lower case, IDNA to
 * punycode, fullwidth forms folded, every IPv4 spelling written as a dotted quad) and after its
 * trailing dot is dropped: `localhost.` is the same DNS name as `localhost`.
 */

const LOCAL_DEV_HOSTS = new Set(["localhost", "127.0.0.1"]);

/** Said with every refusal of this machine (`[::1]`, 127/8, `localhost`): the one way local development may reach it. */
const LOCAL_ALLOWANCE = "in local development only http://localhost and http://127.0.0.1 are allowed, with WEBHOOK_ALLOW_LOCALHOST=true";
const thisMachine = (problem: string) => `${problem}; ${LOCAL_ALLOWANCE}`;

/**
 * Names only a local resolver answers: RFC 6761 (localhost, invalid), mDNS (local), RFC 8375
 * (home.arpa), ICANN's private-use `internal`, and the de facto private suffixes.
 */
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa|invalid)$/;

/** The only IPv6 block IANA allocates for global unicast; everything outside it is reserved or special. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3");

/** The last 32 bits as an IPv4 address. */
const lowIpv4 = (parts: number[]) => ipaddr.fromByteArray(new ipaddr.IPv6(parts).toByteArray().slice(12)) as ipaddr.IPv4;

/**
 * IPv6 forms that carry an IPv4 address the packet ends up at: judged by that IPv4 address.
 * (IPv4-compatible ::/96 is deprecated and never routed: refused as outside 2000::/3.)
 */
const CARRIES_IPV4: { form: string; prefix: [ipaddr.IPv6, number]; ipv4: (parts: number[]) => ipaddr.IPv4 }[] = [
  { form: "an IPv4-mapped", prefix: ipaddr.IPv6.parseCIDR("::ffff:0:0/96"), ipv4: lowIpv4 },
  { form: "an IPv4-translated (RFC 6145)", prefix: ipaddr.IPv6.parseCIDR("::ffff:0:0:0/96"), ipv4: lowIpv4 },
  { form: "a NAT64 (64:ff9b::/96)", prefix: ipaddr.IPv6.parseCIDR("64:ff9b::/96"), ipv4: lowIpv4 },
  {
    form: "a 6to4 (2002::/16)",
    prefix: ipaddr.IPv6.parseCIDR("2002::/16"),
    ipv4: (parts) => new ipaddr.IPv4([parts[1] >> 8, parts[1] & 0xff, parts[2] >> 8, parts[2] & 0xff]),
  },
];

/** ipaddr.js range names, as the user reads them. Any other name is still refused, with its own name. */
const RANGE_WORDS: Record<string, string> = {
  loopback: "this machine (a loopback address)",
  unspecified: "an unspecified address",
  private: "a private address",
  carrierGradeNat: "a private (shared, carrier-grade NAT) address",
  uniqueLocal: "a private (unique local) address",
  deprecatedSiteLocal: "a private (site-local) address",
  linkLocal: "a link-local address",
  multicast: "a multicast address",
  broadcast: "the broadcast address",
};

const describeRange = (range: string) => RANGE_WORDS[range] ?? `a special-purpose address (${range})`;

function ipv4Problem(address: ipaddr.IPv4): string | null {
  const range = address.range();
  if (range === "unicast") return null;
  const problem = `must not point at ${describeRange(range)}`;
  return range === "loopback" ? thisMachine(problem) : problem;
}

function ipv6Problem(address: ipaddr.IPv6): string | null {
  const carrier = CARRIES_IPV4.find((form) => address.match(form.prefix));
  if (carrier) {
    const problem = ipv4Problem(carrier.ipv4(address.parts));
    return problem && `${problem}, carried in ${carrier.form} IPv6 address`;
  }
  const range: string = address.range();
  if (range === "loopback") return thisMachine(`must not point at ${describeRange(range)}`);
  if (range !== "unicast") return `must not point at ${describeRange(range)}`;
  if (!address.match(GLOBAL_UNICAST)) return "must not point at a reserved IPv6 address (outside 2000::/3)";
  return null;
}

const httpsProblem = (url: URL) => (url.protocol === "https:" ? null : "must use https");

/** Null when the URL may be used, else why not (shown to the user). */
export function webhookUrlProblem(raw: string, allowLocalhost: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not carry a user name or password";
  // An address literal is judged before the scheme: `http://[::1]` is refused for where it points, which https would not change.
  if (url.hostname.startsWith("[")) return ipv6Problem(ipaddr.IPv6.parse(url.hostname.slice(1, -1))) ?? httpsProblem(url);
  // The URL parser keeps a DNS name's trailing dot (an IPv4 literal's it drops).
  const host = url.hostname.endsWith(".") ? url.hostname.slice(0, -1) : url.hostname;
  if (url.protocol === "http:" && allowLocalhost && LOCAL_DEV_HOSTS.has(host)) return null;
  if (ipaddr.IPv4.isValidFourPartDecimal(host)) return ipv4Problem(ipaddr.IPv4.parse(host)) ?? httpsProblem(url);
  if (host === "localhost") return thisMachine("must not point at this machine");
  if (url.protocol !== "https:") return "must use https";
  if (host.split(".").includes("")) return "must have a valid host name";
  if (INTERNAL_NAME.test(host)) return "must not point at this machine or an internal name";
  if (!host.includes(".")) return "must use a fully qualified host name";
  return null;
}
