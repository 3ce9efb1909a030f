import type { z } from "@hono/zod-openapi";
import type { ErrorSchema } from "../../src/http/errors";

/** The one error body, as src/http/errors.ts declares it: a test that reads a field the contract drops stops compiling. */
export type ErrorBody = z.infer<typeof ErrorSchema>;
