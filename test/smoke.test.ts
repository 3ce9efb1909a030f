import { exports } from "cloudflare:workers";
import { expect, it } from "vitest";

it("answers an unknown path with the not_found contract", async () => {
  const res = await exports.default.fetch("https://api.test/nope");
  expect(res.status).toBe(404);
  const body = await res.json<{ error: string; request_id: string }>();
  expect(body.error).toBe("not_found");
  expect(res.headers.get("X-Request-Id")).toBe(body.request_id);
});
