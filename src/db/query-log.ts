/**
 * Development only (`QUERY_LOG=1`, never set in wrangler.toml): every statement the Worker binds is
 * printed as one JSON line, `{"query_log":{"sql","params"}}`, so `npm run bench:scale` can run
 * EXPLAIN QUERY PLAN on the SQL the Worker really executes. Params are what drizzle binds: ids,
 * dates, hashes (compliance checks bind HMACs, never an SSN or a date of birth).
 */
const logged = new WeakMap<object, object>();

export function withQueryLog<Bindings extends { DB: D1Database; QUERY_LOG?: string }>(env: Bindings): Bindings {
  if (env.QUERY_LOG !== "1") return env;
  let wrapped = logged.get(env) as Bindings | undefined;
  if (!wrapped) {
    wrapped = { ...env, DB: loggingDatabase(env.DB) };
    logged.set(env, wrapped);
  }
  return wrapped;
}

/** prepare() (on the binding and on its sessions) hands out statements whose bind() logs. */
function loggingDatabase<Target extends D1Database | D1DatabaseSession>(target: Target): Target {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object);
      if (property === "prepare") {
        return (sql: string) => {
          const statement = object.prepare(sql);
          const bind = statement.bind.bind(statement);
          statement.bind = (...params: unknown[]) => {
            console.log(JSON.stringify({ query_log: { sql, params } }));
            return bind(...params);
          };
          return statement;
        };
      }
      if (property === "withSession") return (constraint: string) => loggingDatabase((object as D1Database).withSession(constraint));
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
