import { DurableObject } from "cloudflare:workers";

export class QuotaCounter extends DurableObject<Env> {}
