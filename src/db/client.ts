import { drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";
import type { Database } from "../http/app-env";

const clients = new WeakMap<D1Database, Database>();

/** One drizzle client per D1 binding object, so the hot path does not rebuild it per request. */
export function getDb(d1: D1Database): Database {
  let db = clients.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    clients.set(d1, db);
  }
  return db;
}
