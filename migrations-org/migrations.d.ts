/** migrations.js, as drizzle-kit writes it for the durable-sqlite driver: the journal and each migration's SQL text. */
declare const migrations: {
  journal: { entries: { idx: number; when: number; tag: string; breakpoints: boolean }[] };
  migrations: Record<string, string>;
};
export default migrations;
