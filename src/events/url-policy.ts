/**
 * Where a webhook may point (SSRF rules, PLATFORM.md §10 item 11): https only, no user or
 * password in the URL, no loopback, private, link-local or otherwise internal IP literals or
 * names. `http://localhost` and `http://127.0.0.1` are allowed only when the development flag
 * (WEBHOOK_ALLOW_LOCALHOST) is on, so `npm run dev` can deliver to a receiver on the same machine.
 * Names are checked as written: the Workers runtime gives no DNS answer to check before fetching.
 */

const LOCAL_DEV_HOSTS = new Set(["localhost", "127.0.0.1"]);
const INTERNAL_NAME = /(^|\.)(localhost|local|internal|intranet|lan|home\.arpa)$/i;

function ipv4Octets(host: string): number[] | null {
  const parts = host.split(".");
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p))) return null;
  const octets = parts.map(Number);
  return octets.every((o) => o <= 255) ? octets : null;
}

function isInternalIpv4([a, b]: number[]): boolean {
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function isInternalIpv6(host: string): boolean {
  const h = host.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (mapped) {
    const octets = ipv4Octets(mapped[1]);
    return octets === null || isInternalIpv4(octets);
  }
  // WHATWG URL writes a mapped address in hex (::ffff:7f00:1): refuse every mapped form but the dotted one above.
  if (h.startsWith("::ffff:")) return true;
  return h === "::" || h === "::1" || /^f[cd]/.test(h) || /^fe[89ab]/.test(h) || h.startsWith("ff");
}

/** Null when the URL may be used, else why not (shown to the user). */
export function webhookUrlProblem(raw: string, allowLocalhost: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.username || url.password) return "must not carry a user name or password";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (url.protocol === "http:" && allowLocalhost && LOCAL_DEV_HOSTS.has(host)) return null;
  if (url.protocol !== "https:") return "must use https";
  if (LOCAL_DEV_HOSTS.has(host) || INTERNAL_NAME.test(host)) return "must not point at this machine or an internal name";
  const octets = ipv4Octets(host);
  if (octets && isInternalIpv4(octets)) return "must not point at a loopback, private or link-local address";
  if (host.includes(":") && isInternalIpv6(host)) return "must not point at a loopback, private or link-local address";
  if (!host.includes(".") && !host.includes(":")) return "must use a fully qualified host name";
  return null;
}
