import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../src/config";

/** A complete, valid configuration: each case changes one variable. */
const VALID = {
  PASSWORD_PEPPER: "a-pepper-of-sixteen+",
  COMPLIANCE_HASH_SALT: "a-salt-of-sixteen-chars",
  OFAC_SDN_URL: "https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/SDN.CSV",
  OFAC_ALT_URL: "https://ofac.example/ALT.CSV",
  OFAC_COMMENTS_URL: "https://ofac.example/SDN_COMMENTS.CSV",
  OFAC_PUBLICATION_URL: "http://127.0.0.1:8788/SDN.XML",
  STAFF_ALLOWED_ORIGINS: "https://staff.example",
  WEBHOOK_SECRETS_KEY: btoa("k".repeat(32)),
};

// A fresh object each time: the configuration is kept per env object.
const configWith = (overrides: Record<string, unknown>) => loadConfig({ ...VALID, ...overrides } as unknown as Env);

const refused = (overrides: Record<string, unknown>) => {
  try {
    configWith(overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error.variables;
    throw error;
  }
  return [];
};

describe("the Worker configuration, checked without a schema library (as the zod schema it replaced read it)", () => {
  it("reads the defaults and the switches", () => {
    expect(configWith({})).toMatchObject({
      fredApiKey: undefined,
      eiaApiKey: undefined,
      lenderEnvironmentChangePts: 0.25,
      appraisalVisionModel: "@cf/meta/llama-4-scout-17b-16e-instruct",
      appraisalVisionTimeoutMs: 30_000,
      webhookAllowLocalhost: false,
      staleSanctionsListMode: "production",
    });
    expect(configWith({ DEV_SCREEN_STALE_SANCTIONS_LIST: "true" })).toMatchObject({
      webhookAllowLocalhost: false,
      staleSanctionsListMode: "development",
    });
    expect(configWith({ WEBHOOK_ALLOW_LOCALHOST: "true", DEV_SCREEN_STALE_SANCTIONS_LIST: "false" })).toMatchObject({
      webhookAllowLocalhost: true,
      staleSanctionsListMode: "production",
    });
  });

  it("trims the download addresses and splits the staff origins", () => {
    const config = configWith({
      OFAC_ALT_URL: " https://ofac.example/ALT.CSV\n",
      OFAC_COMMENTS_URL: "https://ofac.example/SDN_\tCOMMENTS.CSV",
      STAFF_ALLOWED_ORIGINS: "https://a.example, http://localhost:3000",
    });
    expect(config.ofacUrls.alt).toBe("https://ofac.example/ALT.CSV");
    expect(config.ofacUrls.comments).toBe("https://ofac.example/SDN_COMMENTS.CSV");
    expect(config.staffAllowedOrigins).toEqual(["https://a.example", "http://localhost:3000"]);
  });

  it("takes the bounds themselves", () => {
    expect(configWith({ PASSWORD_PEPPER: "sixteen-chars-ok", LENDER_ENVIRONMENT_CHANGE_PTS: "5", APPRAISAL_VISION_TIMEOUT_MS: "1" })).toMatchObject({
      passwordPepper: "sixteen-chars-ok",
      lenderEnvironmentChangePts: 5,
      appraisalVisionTimeoutMs: 1,
    });
  });

  it("reads numbers as numbers within their bounds, and an empty key as none", () => {
    expect(configWith({ LENDER_ENVIRONMENT_CHANGE_PTS: "0.5", APPRAISAL_VISION_TIMEOUT_MS: "250", FRED_API_KEY: "" })).toMatchObject({
      lenderEnvironmentChangePts: 0.5,
      appraisalVisionTimeoutMs: 250,
      fredApiKey: undefined,
    });
  });

  it.each([
    ["PASSWORD_PEPPER", "fifteen-chars!!"],
    ["COMPLIANCE_HASH_SALT", undefined],
    ["OFAC_SDN_URL", "ftp://ofac.example/SDN.CSV"],
    ["OFAC_SDN_URL", "https:ofac.example/SDN.CSV"],
    ["OFAC_SDN_URL", "https://"],
    ["STAFF_ALLOWED_ORIGINS", "https://a.example,"],
    ["STAFF_ALLOWED_ORIGINS", "https://a.example/app"],
    ["FRED_API_KEY", "ABCDEFGHIJKLMNOPQRSTUVWXYZ012345"],
    ["EIA_API_KEY", "short"],
    ["LENDER_ENVIRONMENT_CHANGE_PTS", "0"],
    ["LENDER_ENVIRONMENT_CHANGE_PTS", "5.5"],
    ["LENDER_ENVIRONMENT_CHANGE_PTS", ""],
    ["APPRAISAL_VISION_MODEL", ""],
    ["APPRAISAL_VISION_TIMEOUT_MS", "1.5"],
    ["APPRAISAL_VISION_TIMEOUT_MS", "30001"],
    ["WEBHOOK_SECRETS_KEY", btoa("k".repeat(31))],
    ["WEBHOOK_SECRETS_KEY", btoa("k".repeat(33))],
    ["WEBHOOK_SECRETS_KEY", "not base64!"],
    ["WEBHOOK_ALLOW_LOCALHOST", "yes"],
    ["DEV_SCREEN_STALE_SANCTIONS_LIST", ""],
  ])("refuses %s = %j, naming it alone", (name, value) => {
    expect(refused({ [name]: value })).toEqual([name]);
  });

  it("names every bad variable, in the order they are declared", () => {
    expect(refused({ WEBHOOK_SECRETS_KEY: "", PASSWORD_PEPPER: undefined, OFAC_ALT_URL: "nope" })).toEqual([
      "PASSWORD_PEPPER",
      "OFAC_ALT_URL",
      "WEBHOOK_SECRETS_KEY",
    ]);
  });
});
