import { env } from "cloudflare:workers";
import { describe, expect, it, vi } from "vitest";
import { checkPhoto, MAX_PHOTO_BYTES } from "../../src/engines/appraisal/photos";
import { type AppraisalBody, appraise, JPEG_HEAD, jpeg, PNG_HEAD, photo, THIS_YEAR, WEBP_HEAD } from "../helpers/appraisal";
import type { ErrorBody } from "../helpers/bodies";
import { createApiKey, createOrg, createStore } from "../helpers/factories";
import { createTestApp } from "../helpers/test-app";

async function dealer() {
  const org = await createOrg();
  await createStore(org.id, { isPrimary: true });
  return (await createApiKey(org.id)).key;
}

const camry = { year: THIS_YEAR - 5, make: "Toyota", model: "Camry", mileage: 60_000 };

/** A 100 KB JPEG's data URI with four base64 characters replaced at `at` (counted from the start of the base64). */
function withBase64At(at: number, four: string) {
  const uri = jpeg(100_000);
  const start = uri.indexOf(",") + 1 + at;
  return `${uri.slice(0, start)}${four}${uri.slice(start + 4)}`;
}

describe("photo checks", () => {
  it("accepts JPEG, PNG and WebP whose bytes match the declared type", () => {
    expect(checkPhoto(photo("image/jpeg", JPEG_HEAD))).toMatchObject({ ok: true, mediaType: "image/jpeg" });
    expect(checkPhoto(photo("image/png", PNG_HEAD))).toMatchObject({ ok: true, mediaType: "image/png" });
    expect(checkPhoto(photo("image/webp", WEBP_HEAD))).toMatchObject({ ok: true, mediaType: "image/webp" });
  });

  it.each([
    ["not a data URI", "https://example.com/car.jpg", "invalid_data_uri"],
    ["raw base64 without the data: prefix", jpeg().split(",")[1], "invalid_data_uri"],
    ["GIF", photo("image/gif", [...new TextEncoder().encode("GIF89a")]), "unsupported_type"],
    ["base64 with characters outside the alphabet", `${jpeg().slice(0, 60)}!!!!`, "invalid_base64"],
    ["base64 of a length that cannot decode", `${jpeg()}A`, "invalid_base64"],
    // atob, which decodes the photo, skips whitespace: the decoded length refuses it.
    ["base64 with whitespace in it", `${jpeg().slice(0, 63)}\n \t ${jpeg().slice(63)}`, "invalid_base64"],
    ["base64 padded before its end", `${jpeg().slice(0, 63)}AA==${jpeg().slice(63)}`, "invalid_base64"],
    ["base64 in the URL-safe alphabet", `${jpeg().slice(0, 63)}-_-_${jpeg().slice(63)}`, "invalid_base64"],
    // The check decodes 64 Ki characters at a time: padding that ends a piece, and a bad character past the first, are still refused.
    ["base64 padded where a piece of it ends", withBase64At(65_532, "AA=="), "invalid_base64"],
    ["base64 with a bad character past its first 64 Ki characters", withBase64At(70_000, "!!!!"), "invalid_base64"],
    ["an empty image", "data:image/png;base64,", "invalid_base64"],
    ["a PNG declared as JPEG", photo("image/jpeg", PNG_HEAD), "type_mismatch"],
    ["a JPEG declared as WebP", photo("image/webp", JPEG_HEAD), "type_mismatch"],
    ["a RIFF file that is not WebP", photo("image/webp", [...new TextEncoder().encode("RIFF\u0024\0\0\0WAVEfmt ")]), "type_mismatch"],
  ])("refuses %s", (_, dataUri, code) => {
    expect(checkPhoto(dataUri)).toMatchObject({ ok: false, code });
  });

  it("allows 5 MiB and refuses a byte more", () => {
    expect(checkPhoto(jpeg(MAX_PHOTO_BYTES))).toMatchObject({ ok: true, bytes: MAX_PHOTO_BYTES });
    expect(checkPhoto(jpeg(MAX_PHOTO_BYTES + 1))).toMatchObject({ ok: false, code: "too_big" });
  });
});

describe("POST /api/v1/trade-appraisal — photos without a vision model", () => {
  it("checks the photos, does not raise confidence and says they were not analysed", async () => {
    const key = await dealer();
    const res = await appraise(key, { ...camry, photos: [jpeg(), photo("image/png", PNG_HEAD)] });
    expect(res.status).toBe(200);
    const body = await res.json<AppraisalBody>();
    expect(body.confidence).toBe("medium");
    expect(body.recon_estimate).toEqual({ detail: 200, total: 200 });
    expect(body.market_note).toContain("2 photos checked but not analysed: no vision model is configured");
  });

  it("422 names the index of each bad photo", async () => {
    const key = await dealer();
    const res = await appraise(key, {
      ...camry,
      photos: [jpeg(), "data:image/gif;base64,R0lGODlh", photo("image/jpeg", PNG_HEAD), jpeg(MAX_PHOTO_BYTES + 1)],
    });
    expect(res.status).toBe(422);
    const { details } = await res.json<ErrorBody>();
    expect(details?.map((d) => [d.path, d.code])).toEqual([
      ["photos.1", "unsupported_type"],
      ["photos.2", "type_mismatch"],
      ["photos.3", "too_big"],
    ]);
  });

  it("422 for more than six photos", async () => {
    const key = await dealer();
    const res = await appraise(key, { ...camry, photos: Array.from({ length: 7 }, () => jpeg()) });
    expect(res.status).toBe(422);
    expect((await res.json<ErrorBody>()).details?.map((d) => d.path)).toEqual(["photos"]);
  });

  it("appraises from photos alone (no condition notes)", async () => {
    const key = await dealer();
    expect((await appraise(key, { ...camry, photos: Array.from({ length: 6 }, () => jpeg()) })).status).toBe(200);
  });
});

type AiRun = (
  model: string,
  inputs: { messages: { content: { type: string; image_url?: { url: string } }[] }[] },
  options?: { signal?: AbortSignal },
) => Promise<unknown>;

/** The production app with a stand-in Workers AI binding (and, for the timeout, a short bound). */
function withVision(run: AiRun, vars: Record<string, string> = {}) {
  const ai = { run: vi.fn(run) };
  const { request } = createTestApp(undefined, { ...env, ...vars, AI: ai } as unknown as Env);
  const post = (key: string, body: unknown) =>
    request("/api/v1/trade-appraisal", {
      method: "POST",
      headers: { "X-Service-API-Key": key, "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
  return { ai, post };
}

const answer = (damage: { item: string; count: number }[]) => async () => ({ response: JSON.stringify({ damage }) });

describe("POST /api/v1/trade-appraisal — with a vision model", () => {
  it("adds the damage the model sees, counts damage seen in the notes and a photo once, and raises confidence to high", async () => {
    const key = await dealer();
    const { ai, post } = withVision(
      answer([
        { item: "door_ding_repair", count: 3 },
        { item: "paint_panel", count: 1 },
        { item: "flux_capacitor", count: 1 },
      ]),
    );
    const photos = [jpeg(), photo("image/webp", WEBP_HEAD)];
    const res = await post(key, { ...camry, condition_notes: "One door ding on the driver door.", photos });
    expect(res.status).toBe(200);
    const body = await res.json<AppraisalBody>();
    // Three dings (150 + 2 × 75), one panel, the detail; the unknown item is ignored.
    expect(body.recon_estimate).toEqual({ door_ding_repair: 300, paint_panel: 500, detail: 200, total: 1000 });
    expect(body.confidence).toBe("high");
    expect(body.market_note).toContain("2 photos analysed for visible damage: door_ding_repair ×3, paint_panel ×1");
    expect(ai.run).toHaveBeenCalledTimes(2);
    const [model, inputs] = ai.run.mock.calls[0];
    expect(model).toBe("@cf/meta/llama-4-scout-17b-16e-instruct");
    expect(inputs.messages[0].content.find((part) => part.type === "image_url")?.image_url?.url).toBe(photos[0]);
  });

  it("does not call the model without photos, and stays at medium", async () => {
    const key = await dealer();
    const { ai, post } = withVision(answer([]));
    const body = await (await post(key, { ...camry, condition_notes: "clean" })).json<AppraisalBody>();
    expect(ai.run).not.toHaveBeenCalled();
    expect(body.confidence).toBe("medium");
  });

  it("raises confidence when the photos show no damage", async () => {
    const key = await dealer();
    const { post } = withVision(answer([]));
    const body = await (await post(key, { ...camry, photos: [jpeg()] })).json<AppraisalBody>();
    expect(body.confidence).toBe("high");
    expect(body.market_note).toContain("1 photo analysed for visible damage: none seen.");
  });

  it("answers 503 upstream_timeout when the model is slower than the bound, and aborts the call", async () => {
    const key = await dealer();
    let aborted = false;
    const { post } = withVision(
      (_model, _inputs, options) =>
        new Promise((_, reject) => {
          options?.signal?.addEventListener("abort", () => {
            aborted = true;
            reject(new Error("aborted"));
          });
        }),
      { APPRAISAL_VISION_TIMEOUT_MS: "50" },
    );
    const started = Date.now();
    const res = await post(key, { ...camry, photos: [jpeg()] });
    expect(res.status).toBe(503);
    expect((await res.json<ErrorBody>()).error).toBe("upstream_timeout");
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(aborted).toBe(true);
  });

  it("appraises without the photos when the model fails or answers nonsense, and says so", async () => {
    const key = await dealer();
    vi.spyOn(console, "warn").mockImplementation(() => {});
    for (const run of [async () => Promise.reject(new Error("InferenceUpstreamError: 5xx")), async () => ({ response: "I see a nice car." })]) {
      const { post } = withVision(run);
      const res = await post(key, { ...camry, condition_notes: "Needs tires", photos: [jpeg()] });
      expect(res.status).toBe(200);
      const body = await res.json<AppraisalBody>();
      expect(body.confidence).toBe("medium");
      expect(body.recon_estimate).toEqual({ tires_set_of_4: 800, detail: 200, total: 1000 });
      expect(body.market_note).toContain("1 photo checked but not analysed: the vision model failed");
    }
  });

  // Clean photos never lift confidence above what the price basis allows: an unknown model on the
  // generic price class is low (docs/domain/appraisal.md, issue 33), with or without them.
  it("keeps confidence at low when the value rests on the generic price class", async () => {
    const key = await dealer();
    const { post } = withVision(answer([]));
    const body = await (await post(key, { year: 1995, make: "Saab", model: "900", mileage: 180_000, photos: [jpeg()] })).json<AppraisalBody>();
    expect(body.confidence).toBe("low");
  });
});
