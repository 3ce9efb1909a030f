import type { z } from "@hono/zod-openapi";
import { newId } from "../../credentials/tokens";
import type { Database } from "../../db/client";
import {
  type ComplianceSettings,
  getComplianceSettings,
  getIdentityHistory,
  getListInForce,
  getScreeningRows,
  insertComplianceCheck,
  type ListInForce,
} from "../../db/queries/compliance";
import { decideScreening } from "../../engines/screening/decision";
import { normaliseName } from "../../engines/screening/names";
import { identityRedFlags, type RequestHandling, safeguardsFlags } from "../../engines/screening/red-flags";
import { buildSanctionsIndex, type SanctionsIndex, screenPerson } from "../../engines/screening/sanctions-index";
import { commitWithEvents } from "../../events/emit";
import { TtlCache } from "../../lib/ttl-cache";
import type { ComplianceCheckRequestSchema } from "./compliance.routes";
import { usZipSet } from "./us-zip-set";

/**
 * Per isolate: which list is in force (re-read at most once a minute, so a refresh is picked up
 * within a minute), each organization's settings, and the index of the list in force, built once
 * from D1 and kept until another list comes into force.
 */
const CACHE_TTL_MS = 60_000;
const listInForce = new TtlCache<ListInForce | null>({ ttlMs: CACHE_TTL_MS, maxEntries: 1 });
const settingsByOrg = new TtlCache<ComplianceSettings | null>({ ttlMs: CACHE_TTL_MS, maxEntries: 1024 });
let builtIndex: { listId: string; index: SanctionsIndex } | null = null;

/** The index of the list, or null if its rows are gone (a newer list replaced it mid-request): then nothing is screened. */
async function sanctionsIndexFor(db: Database, list: ListInForce): Promise<SanctionsIndex | null> {
  if (builtIndex?.listId === list.id) return builtIndex.index;
  const rows = await getScreeningRows(db, list.id);
  if (rows.entries.length === 0) {
    listInForce.evict("list");
    return null;
  }
  const index = buildSanctionsIndex(rows);
  builtIndex = { listId: list.id, index };
  return index;
}

let hmacKey: { salt: string; key: CryptoKey } | null = null;

/** HMAC-SHA256 under COMPLIANCE_HASH_SALT: stable per person within a deployment, useless without the secret. */
async function keyedHash(salt: string, value: string): Promise<string> {
  if (hmacKey?.salt !== salt) {
    const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(salt), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    hmacKey = { salt, key };
  }
  const mac = await crypto.subtle.sign("HMAC", hmacKey.key, new TextEncoder().encode(value));
  return [...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function personHashes(salt: string, input: z.infer<typeof ComplianceCheckRequestSchema>) {
  const name = normaliseName(`${input.first_name} ${input.last_name}`);
  const hash = (...parts: string[]) => keyedHash(salt, parts.join("\u001f"));
  const [personHash, nameHash, dobHash, ssnDobHash, nameZipHash] = await Promise.all([
    hash("person", name, input.dob, input.ssn_last4 ?? "", input.address_zip ?? ""),
    hash("name", name),
    hash("dob", input.dob),
    input.ssn_last4 ? hash("ssn_dob", input.ssn_last4, input.dob) : null,
    input.address_zip ? hash("name_zip", name, input.address_zip) : null,
  ]);
  return { personHash, nameHash, dobHash, ssnDobHash, nameZipHash };
}

const REQUEST_FIELDS = new Set(["first_name", "last_name", "dob", "ssn_last4", "address_zip"]);
const FULL_SSN = /^\d{3}-?\d{2}-?\d{4}$/;

/** What the Safeguards checks need to know of the raw request; nothing of it is kept. */
export function describeHandling(url: string, rawBody: unknown): RequestHandling {
  const { protocol, hostname } = new URL(url);
  const local = hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
  const body = rawBody !== null && typeof rawBody === "object" ? (rawBody as Record<string, unknown>) : {};
  const unrequestedFields = Object.keys(body)
    .filter((k) => !REQUEST_FIELDS.has(k))
    .slice(0, 20);
  return {
    encryptedInTransit: protocol === "https:" || local,
    unrequestedFields,
    fullSsnFields: Object.entries(body)
      .filter(([, v]) => typeof v === "string" && FULL_SSN.test(v.trim()))
      .map(([k]) => k)
      .slice(0, 20),
  };
}

export async function runComplianceCheck(
  env: Env,
  db: Database,
  caller: { orgId: string; keyId: string; salt: string },
  input: z.infer<typeof ComplianceCheckRequestSchema>,
  handling: RequestHandling,
  now: Date,
) {
  const settings = await settingsByOrg.get(caller.orgId, now.getTime(), () => getComplianceSettings(db, caller.orgId));
  if (!settings) throw new Error("compliance_settings has no default row ('*'); apply the migrations");
  const list = await listInForce.get("list", now.getTime(), () => getListInForce(db));
  const index = list ? await sanctionsIndexFor(db, list) : null;
  const hashes = await personHashes(caller.salt, input);
  const history = await getIdentityHistory(db, caller.orgId, hashes);

  const person = { firstName: input.first_name, lastName: input.last_name, dob: input.dob };
  const match = index ? screenPerson(index, person) : null;
  const usZips = await usZipSet(db);
  const redFlags = identityRedFlags({ ...person, ssnLast4: input.ssn_last4, addressZip: input.address_zip }, now, settings, history, usZips);
  const handlingFlags = safeguardsFlags(handling);
  const thresholds = { holdScore: settings.holdScore, flagScore: settings.flagScore, maxListAgeDays: settings.maxListAgeDays };
  const decision = decideScreening({
    list: list && index ? { loaded: true, loadedAt: list.loadedAt } : { loaded: false },
    match,
    redFlags,
    thresholds,
    now,
  });
  const reported = match && match.score >= settings.flagScore ? match : null;

  const checkId = newId("chk");
  const checkedAt = now.toISOString();
  const audit = insertComplianceCheck(db, caller.orgId, {
    id: checkId,
    keyId: caller.keyId,
    result: decision.result,
    triggeredRule: decision.triggeredRule,
    score: match?.score ?? 0,
    holdScore: settings.holdScore,
    flagScore: settings.flagScore,
    maxListAgeDays: settings.maxListAgeDays,
    listVersion: index ? (list?.version ?? null) : null,
    listLoadedAt: index ? (list?.loadedAt ?? null) : null,
    matchedEntNum: reported?.ent_num ?? null,
    redFlags: redFlags.map((f) => f.code),
    safeguardsFlags: handlingFlags.map((f) => f.code),
    ...hashes,
    checkedAt,
  });
  const events =
    decision.result === "hold"
      ? [
          {
            event: "compliance.hold_triggered" as const,
            orgId: caller.orgId,
            storeId: null,
            data: { check_id: checkId, triggered_rule: decision.triggeredRule, score: match?.score ?? 0, ent_num: reported?.ent_num ?? null },
          },
        ]
      : [];
  await commitWithEvents(env, db, [audit], events, now);

  return {
    check_id: checkId,
    result: decision.result,
    ofac_match: decision.ofacMatch,
    triggered_rule: decision.triggeredRule,
    red_flags: redFlags,
    safeguards_flags: handlingFlags,
    checked_at: checkedAt,
    screening: {
      score: match?.score ?? 0,
      hold_threshold: settings.holdScore,
      flag_threshold: settings.flagScore,
      list:
        list && index && decision.listAgeDays !== null
          ? { version: list.version, loaded_at: list.loadedAt, age_days: decision.listAgeDays, max_age_days: settings.maxListAgeDays }
          : null,
      match: reported,
    },
  };
}
