import { describe, expect, it } from "vitest";
import { keepsAnswer, parseIdempotencyKey } from "../../src/engines/idempotency/idempotency-key";

describe("parseIdempotencyKey", () => {
  it("takes a bare key of visible ASCII, and the draft's sf-string form as the same key", () => {
    expect(parseIdempotencyKey("8e03978e-40d5-43e8-bc93-6894a57f9324")).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(parseIdempotencyKey('"8e03978e-40d5-43e8-bc93-6894a57f9324"')).toBe("8e03978e-40d5-43e8-bc93-6894a57f9324");
    expect(parseIdempotencyKey(' "with space and \\"escapes\\" \\\\" ')).toBe('with space and "escapes" \\');
    expect(parseIdempotencyKey("x".repeat(255))).toBe("x".repeat(255));
  });

  it.each(["", '""', "has space", "x".repeat(256), `"${"x".repeat(256)}"`, "caf\u00e9", '"unterminated', '"bad \\n escape"', '"a"b"', "tab\there"])(
    "refuses %j",
    (value) => {
      expect(parseIdempotencyKey(value)).toBeNull();
    },
  );
});

describe("keepsAnswer", () => {
  it("keeps successes and the handler's own refusals, not 5xx nor refusals of the request as sent", () => {
    expect(keepsAnswer(201, null)).toBe(true);
    expect(keepsAnswer(200, null)).toBe(true);
    expect(keepsAnswer(404, "not_found")).toBe(true);
    for (const code of ["invalid_request", "unauthorized", "forbidden", "payload_too_large", "validation_error", "daily_rate_limit_reached"]) {
      expect(keepsAnswer(400, code), code).toBe(false);
    }
    expect(keepsAnswer(500, "internal_error")).toBe(false);
    expect(keepsAnswer(503, null)).toBe(false);
  });
});
