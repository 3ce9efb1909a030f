import { z } from "@hono/zod-openapi";
import { SANDBOX_LIFETIME_DAYS, SANDBOXES_PER_ADDRESS_PER_DAY, TEST_KEY_DAILY_LIMIT } from "../../credentials/sandbox-limits";
import { clientAddress } from "../../http/credential-failures";
import { documentedError } from "../../http/errors";
import type { IdempotencyScope } from "../../http/idempotency";
import { route } from "../../http/route";
import { sandboxAddressHash } from "./sandboxes.service";

/**
 * A sandbox has no caller yet to own its `Idempotency-Key`: the client address (keyed hash) is the
 * scope, so a retry from the same client gets the same sandbox, not a second one.
 */
const sandboxAddressScope: IdempotencyScope = (c) => `sandbox-address:${sandboxAddressHash(c.get("config").passwordPepper, clientAddress(c))}`;

export const SandboxSchema = z
  .object({
    organization_id: z.string().openapi({ example: "org_sbx_k3v9q2m7x1c4" }),
    name: z.string(),
    mode: z.literal("test").openapi({ description: "Every answer to the sandbox's keys carries `X-Service-Mode: test`." }),
    expires_at: z.iso.datetime().openapi({
      description: `${SANDBOX_LIFETIME_DAYS} days after creation. From then on its keys and broker token are refused (403 \`sandbox_expired\`); the nightly purge deletes it and all its data.`,
    }),
    api_key: z.string().openapi({
      description: "A `lak_test_` key for `X-Service-API-Key`, on this sandbox only. Shown in this response only.",
      example: "lak_test_4Hq8sVx2LmN0pRtY7wZc1bKd9fGj3aE5uT6yXk",
    }),
    daily_limit: z
      .int()
      .openapi({ description: "The test key's requests per UTC day; no test key can be raised above it.", example: TEST_KEY_DAILY_LIMIT }),
    broker_token: z.string().openapi({
      description:
        "A `dbt_` broker token of the sandbox, for `Authorization: Bearer` on /api/public-api/keys (its keys are `lak_test_` keys) and ingestion. Shown in this response only.",
      example: "dbt_Vb7Kq2Rz8Lm4Np1Xc6Jt3Hs9Gd5Fw0Ya2Eu7Qi",
    }),
    stores: z.array(z.object({ id: z.string(), name: z.string(), is_primary: z.boolean() })),
  })
  .openapi("Sandbox", {
    example: {
      organization_id: "org_sbx_k3v9q2m7x1c4",
      name: "Sandbox k3v9q2m7x1c4 (demo data of Summit Auto Group)",
      mode: "test",
      expires_at: "2026-12-26T09:30:00.000Z",
      api_key: "lak_test_4Hq8sVx2LmN0pRtY7wZc1bKd9fGj3aE5uT6yXk",
      daily_limit: 1000,
      broker_token: "dbt_Vb7Kq2Rz8Lm4Np1Xc6Jt3Hs9Gd5Fw0Ya2Eu7Qi",
      stores: [
        { id: "sto_sbx_k3v9q2m7x1c4_north", name: "Summit Auto North", is_primary: true },
        { id: "sto_sbx_k3v9q2m7x1c4_south", name: "Summit Auto South", is_primary: false },
      ],
    },
  });

export const createSandbox = route({
  method: "post",
  path: "/api/sandboxes",
  operationId: "createSandbox",
  tags: ["Sandboxes"],
  summary: "Create a sandbox: the real service on demo data, with a test key",
  description: `No credential and no body. A new organization seeded with the demo data (two stores, a few hundred units, months of deals, an open funding pipeline) and a \`lak_test_\` key (${TEST_KEY_DAILY_LIMIT} requests a day) that reaches this sandbox only; live keys never reach it. It expires after ${SANDBOX_LIFETIME_DAYS} days and is then purged. At most 5 a minute and ${SANDBOXES_PER_ADDRESS_PER_DAY} a UTC day per client address. See docs/sandboxes.md.`,
  caller: "anyone",
  idempotent: sandboxAddressScope,
  // The answer holds a key and a broker token, shown once.
  private: true,
  responses: {
    400: documentedError("A malformed `Idempotency-Key` (`invalid_request`)."),
    201: {
      description: "Created. Sent with `Cache-Control: no-store` and `X-Service-Mode: test`.",
      content: { "application/json": { schema: SandboxSchema } },
    },
    429: documentedError(
      `More than 5 sandboxes a minute or ${SANDBOXES_PER_ADDRESS_PER_DAY} a UTC day from this client address (\`rate_limited\`, with \`Retry-After\`).`,
    ),
    500: documentedError("Unexpected server error (`internal_error`); nothing of the sandbox is kept."),
  },
});
