import type { z } from "@hono/zod-openapi";
import type { Database } from "../../db/client";
import { getGivenNameFormsCsv, getListedParts, getListInForce, getScreeningRows, type ListInForce } from "../../db/queries/compliance";
import { type ComplianceSettingsValues, complianceValuesOf, getComplianceDefaults, sameComplianceValues } from "../../db/queries/settings";
import { confirmRelayed, orgStore } from "../../durable-objects/org-storage-routing";
import { decideScreening, type StaleListMode } from "../../engines/screening/decision";
import { type GivenNameForms, parseGivenNameForms } from "../../engines/screening/given-name-forms";
import { nonLatinNameFields, normaliseName } from "../../engines/screening/names";
import { IDENTITY_HISTORIES, identityRedFlags, type RequestHandling, safeguardsFlags } from "../../engines/screening/red-flags";
import {
  addToSanctionsIndex,
  buildSanctionsIndex,
  missingIndividuals,
  type SanctionsIndex,
  sanctionsIndexOfParts,
  screenPerson,
} from "../../engines/screening/sanctions-index";
import { commitWithEvents } from "../../events/emit";
import type { Background } from "../../lib/background";
import { DomainError } from "../../lib/domain-error";
import { toHex } from "../../lib/hex";
import { newId } from "../../lib/ids";
import { onSettingsChange } from "../../lib/settings-changes";
import { TtlCache } from "../../lib/ttl-cache";
import type { ComplianceCheckRequestSchema } from "./compliance.routes";
import { usZipSet } from "./us-zip-set";

/**
 * Per isolate: which list is in force and the default thresholds (D1's '*' row), each re-read at
 * most once a minute, so a refresh is picked up within a minute; and the index of the list in force, started from
 * the list's stored name parts and grown from D1 by the listed individuals holding a part close to
 * a screened name, kept until another list comes into force (a first check loads only those, not
 * the whole list: docs/compliance.md, "The first check").
 */
const CACHE_TTL_MS = 60_000;
const listInForce = new TtlCache<ListInForce | null>({ ttlMs: CACHE_TTL_MS, maxEntries: 1 });
const defaultThresholds = new TtlCache<ComplianceSettingsValues | null>({ ttlMs: CACHE_TTL_MS, maxEntries: 1 });
/**
 * Per isolate: an organization's own thresholds as its object last answered them. They need no
 * expiry: the object records no screening computed with thresholds other than its own, and answers
 * those instead, so a stale copy costs a second call, never a wrong check.
 */
const thresholdsByOrg = new TtlCache<ComplianceSettingsValues>({ ttlMs: Number.POSITIVE_INFINITY, maxEntries: 1024 });
onSettingsChange((orgId) => thresholdsByOrg.evict(orgId));
let builtIndex: { listId: string; index: SanctionsIndex } | null = null;

let givenNameForms: GivenNameForms | null = null;

/** The published nickname list, read from D1 once per isolate (it changes only with a migration). */
async function givenNameFormsFor(db: Database): Promise<GivenNameForms> {
  if (givenNameForms) return givenNameForms;
  const csv = await getGivenNameFormsCsv(db);
  // Without it "Nick Maduro" on the listed birth date would pass: refuse instead.
  if (!csv) throw new Error("given_name_forms has no row; apply the migrations");
  givenNameForms = parseGivenNameForms(csv);
  return givenNameForms;
}

/** The list's index as an isolate starts it: its stored name parts, or, for a list loaded before them, the whole list (null if its rows are gone). */
async function startSanctionsIndex(db: Database, listId: string, forms: GivenNameForms): Promise<SanctionsIndex | null> {
  const parts = await getListedParts(db, listId);
  if (parts.length > 0) return sanctionsIndexOfParts(parts, forms);
  const rows = await getScreeningRows(db, listId);
  return rows.listed ? buildSanctionsIndex(rows, forms) : null;
}

/**
 * The index of the list, holding every listed individual this person's screening can meet, or
 * null if the list's rows are gone (a newer list replaced it mid-request): then nothing is screened.
 */
async function sanctionsIndexFor(
  db: Database,
  list: ListInForce,
  person: { firstName: string; lastName: string },
  forms: GivenNameForms,
): Promise<SanctionsIndex | null> {
  const held = () => (builtIndex?.listId === list.id ? builtIndex.index : null);
  let index = held();
  if (!index) {
    const started = await startSanctionsIndex(db, list.id, forms);
    // Another check may have started it meanwhile: one index per list.
    index = held() ?? started;
    if (index) builtIndex = { listId: list.id, index };
  }
  const missing = index ? missingIndividuals(index, person) : null;
  if (index && missing && missing.parts.length > 0) {
    const rows =
      missing.entNums.length > 0 ? await getScreeningRows(db, list.id, missing.entNums) : { entries: [], aliases: [], dobs: [], listed: true };
    if (!rows.listed) index = null;
    // An individual another check added meanwhile is kept once.
    else addToSanctionsIndex(index, rows, missing.parts);
  }
  if (!index) listInForce.evict("list");
  return index;
}

const encoder = new TextEncoder();
/** Per isolate: each organization's hash key under the current secret (derivation is cheap, but not free per check). */
const ORG_KEYS_MAX = 1024;
let orgKeys: { salt: string; cache: TtlCache<CryptoKey> } | null = null;

/**
 * The organization's own HMAC-SHA256 key: HKDF-SHA256 of COMPLIANCE_HASH_SALT with the
 * organization id as `info` (docs/domain/screening.md#identity-hashes-per-organization). The same
 * person hashes alike within one organization, so its repeat-customer red flags still work, and
 * differently in every other, so the audit table cannot link a customer across organizations.
 */
function orgHashKey(salt: string, orgId: string, nowMs: number): Promise<CryptoKey> {
  if (orgKeys?.salt !== salt) orgKeys = { salt, cache: new TtlCache<CryptoKey>({ ttlMs: Number.POSITIVE_INFINITY, maxEntries: ORG_KEYS_MAX }) };
  return orgKeys.cache.get(orgId, nowMs, async () => {
    const secret = await crypto.subtle.importKey("raw", encoder.encode(salt), "HKDF", false, ["deriveKey"]);
    return crypto.subtle.deriveKey(
      { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(0), info: encoder.encode(orgId) },
      secret,
      { name: "HMAC", hash: "SHA-256", length: 256 },
      false,
      ["sign"],
    );
  });
}

async function personHashes(key: CryptoKey, input: z.infer<typeof ComplianceCheckRequestSchema>) {
  const name = normaliseName(`${input.first_name} ${input.last_name}`);
  const hash = async (...parts: string[]) => toHex(await crypto.subtle.sign("HMAC", key, encoder.encode(parts.join("\u001f"))));
  const [personHash, nameHash, dobHash, ssnDobHash, nameZipHash] = await Promise.all([
    hash("person", name, input.dob, input.ssn_last4 ?? "", input.address_zip ?? ""),
    hash("name", name),
    hash("dob", input.dob),
    input.ssn_last4 ? hash("ssn_dob", input.ssn_last4, input.dob) : null,
    input.address_zip ? hash("name_zip", name, input.address_zip) : null,
  ]);
  return { personHash, nameHash, dobHash, ssnDobHash, nameZipHash };
}

/** What the Safeguards checks need to know of the request: only how it travelled. */
export function describeHandling(url: string): RequestHandling {
  const { protocol, hostname } = new URL(url);
  const local = hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]";
  return { encryptedInTransit: protocol === "https:" || local };
}

/**
 * A name in another script is refused, not transliterated: the deal is written in the name as on
 * the customer's ID (Latin letters on US documents and passports), and OFAC lists names in Latin
 * transliteration, of which each script has several (docs/domain/screening.md#names-in-other-scripts).
 */
function refuseNonLatinNames(input: { first_name: string; last_name: string }) {
  const fields = nonLatinNameFields(input);
  if (fields.length === 0) return;
  throw new DomainError("invalid", "Enter the customer's name as written on their ID, in Latin letters.", {
    problems: fields.map((path) => ({
      path,
      code: "name_not_latin_script",
      message:
        "The name is written in another script. Enter it as it appears on the customer's ID (driver's licence or passport, in Latin letters): it is screened against OFAC's list as written there.",
    })),
  });
}

export async function runComplianceCheck(
  env: Env,
  db: Database,
  caller: { orgId: string; keyId: string; salt: string },
  input: z.infer<typeof ComplianceCheckRequestSchema>,
  handling: RequestHandling,
  now: Date,
  staleListMode: StaleListMode,
  background: Background,
) {
  refuseNonLatinNames(input);
  // Read together: on an isolate's first check each is a round trip of its own (BENCHMARKS.md, "Round trips").
  const [defaults, listState, usZips, forms] = await Promise.all([
    defaultThresholds.get("*", now.getTime(), () => getComplianceDefaults(db)),
    listInForce.get("list", now.getTime(), () => getListInForce(db)),
    usZipSet(db),
    givenNameFormsFor(db),
  ]);
  if (!defaults) throw new Error("compliance_settings has no default row ('*'); apply the migrations");
  const person = { firstName: input.first_name, lastName: input.last_name, dob: input.dob };
  const index = listState ? await sanctionsIndexFor(db, listState, person, forms) : null;
  const hashes = await personHashes(await orgHashKey(caller.salt, caller.orgId, now.getTime()), input);
  const handlingFlags = safeguardsFlags(handling);
  const list = listState && index ? listState : null;
  const checkId = newId("chk");
  const checkedAt = now.toISOString();

  /** The screening under `settings`: the check to record, its outcome for each history, and a hold's event. */
  const screen = (settings: ComplianceSettingsValues) => {
    const match = index ? screenPerson(index, person, { holdScore: settings.holdScore, flagScore: settings.flagScore }) : null;
    // The result for each history the organization's earlier checks can show; the audit insert
    // reads the history and records the matching one in the same statement.
    const outcomes = IDENTITY_HISTORIES.map((history) => {
      const redFlags = identityRedFlags({ ...person, ssnLast4: input.ssn_last4, addressZip: input.address_zip }, now, settings, history, usZips);
      const decision = decideScreening({
        list: list ? { loaded: true, version: list.version, versionBasis: list.versionBasis } : { loaded: false },
        match,
        redFlags,
        limit: settings,
        now,
        mode: staleListMode,
      });
      // A refusal comes from the list alone, so every outcome agrees on it: nothing is screened or recorded.
      if (decision.refused) throw new DomainError("sanctions_list_stale", decision.message);
      return { redFlags, decision };
    });
    // A hold comes from the list alone, so every outcome agrees on it.
    const { decision: listDecision } = outcomes[0];
    // A listed name ruled out below the flag line is not worth showing; one ruled out above it says why it did not count.
    const reported = match && (match.outcome !== "pass" || match.score >= settings.flagScore) ? match : null;
    const check = {
      id: checkId,
      keyId: caller.keyId,
      score: match?.score ?? 0,
      holdScore: settings.holdScore,
      flagScore: settings.flagScore,
      maxListAgeDays: settings.maxListAgeDays,
      listVersion: list?.version ?? null,
      listLoadedAt: list?.loadedAt ?? null,
      matchedEntNum: reported?.ent_num ?? null,
      safeguardsFlags: handlingFlags.map((f) => f.code),
      ...hashes,
      checkedAt,
    };
    const recorded = outcomes.map(({ redFlags, decision }) => ({
      result: decision.result,
      triggeredRule: decision.triggeredRule,
      redFlags: redFlags.map((f) => f.code),
    }));
    const events =
      listDecision.result === "hold"
        ? [
            {
              event: "compliance.hold_triggered" as const,
              orgId: caller.orgId,
              storeId: null,
              data: { check_id: checkId, triggered_rule: listDecision.triggeredRule, score: match?.score ?? 0, ent_num: reported?.ent_num ?? null },
            },
          ]
        : [];
    return { settings, match, outcomes, reported, check, recorded, events };
  };

  const store = orgStore(env, caller.orgId);
  // The organization's own thresholds as last seen here, else the defaults: its object, which keeps them, checks them.
  const guessed = thresholdsByOrg.peek(caller.orgId, now.getTime()) ?? defaults;
  let screened: ReturnType<typeof screen>;
  try {
    screened = screen(guessed);
  } catch (error) {
    // A list too old for the thresholds guessed records nothing, so the object cannot check them: it is asked for its own, once.
    if (!(error instanceof DomainError && error.kind === "sanctions_list_stale")) throw error;
    const own = await store.complianceThresholds(caller.orgId);
    const inForce = own ? complianceValuesOf(own) : defaults;
    if (sameComplianceValues(inForce, guessed)) throw error;
    thresholdsByOrg.set(caller.orgId, inForce, now.getTime());
    screened = screen(inForce);
  }
  // The object records the check in one call (the history read and the row written in one
  // statement, the event in its outbox in the same transaction); the event is then relayed to D1
  // (docs/scaling.md#an-object-write-and-its-events). A screening run with thresholds other than
  // the object's (this isolate's copy older than a change) is run again with those it answers,
  // once, and they are kept for the next check.
  const record = () =>
    store.recordCheck(caller.orgId, screened.check, screened.recorded, screened.events, checkedAt, {
      used: screened.settings,
      defaults,
    });
  let written = await record();
  if ("thresholds" in written) {
    thresholdsByOrg.set(caller.orgId, written.thresholds, now.getTime());
    screened = screen(written.thresholds);
    written = await record();
  }
  if ("thresholds" in written) throw new DomainError("conflict", "The screening thresholds kept changing under this check; send it again.");
  if (written.events.length > 0) {
    await commitWithEvents(env, db, [], [], now, written.events);
    confirmRelayed(env, caller.orgId, written.events, background);
  }
  const { settings, match, reported } = screened;
  const { redFlags, decision } = screened.outcomes[written.outcome];

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
        list && decision.list
          ? {
              version: list.version,
              version_basis: list.versionBasis,
              loaded_at: list.loadedAt,
              age_days: decision.list.ageDays,
              max_age_days: settings.maxListAgeDays,
              stale: decision.list.stale,
              ...(decision.list.warning ? { warning: decision.list.warning } : {}),
            }
          : null,
      match: reported,
    },
  };
}

/** A recorded check as the organization's audit trail shows it (GET /api/v1/compliance-checks/{check_id}), read from its object. */
export async function findComplianceCheck(env: Pick<Env, "ORG_STORE">, orgId: string, checkId: string) {
  const row = await orgStore(env, orgId).complianceCheck(orgId, checkId);
  if (!row) throw new DomainError("not_found", "This organization has no compliance check with that id.");
  return {
    check_id: row.id,
    result: row.result,
    ofac_match: row.result === "hold",
    triggered_rule: row.triggeredRule,
    score: row.score,
    hold_threshold: row.holdScore,
    flag_threshold: row.flagScore,
    max_list_age_days: row.maxListAgeDays,
    list_version: row.listVersion,
    list_loaded_at: row.listLoadedAt,
    matched_ent_num: row.matchedEntNum,
    red_flags: row.redFlags,
    safeguards_flags: row.safeguardsFlags,
    key_id: row.keyId,
    checked_at: row.checkedAt,
  };
}
