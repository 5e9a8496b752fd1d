// The fingerprint must move on every kind of change (insert, update of one field, delete) and stay put otherwise,
// or "the database is unchanged after a refused call" would prove nothing.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../../../test/find-postgres";
import { changedTables, databaseChecksum, listTables } from "./database-checksum";

let database: Awaited<ReturnType<typeof createDatabase>>;
let pool: pg.Pool;

beforeAll(async () => {
  database = await createDatabase(inject("adminDatabaseUrl"), "packrat_checksum");
  pool = new pg.Pool({ connectionString: database.url, max: 1 });
  pool.on("error", () => {}); // the forced drop in afterAll may terminate a client pool.end() is still closing
  await pool.query(
    `CREATE TABLE item (id int PRIMARY KEY, name text, meta jsonb); CREATE TABLE "Other Table" (x int); CREATE TABLE _prisma_migrations (id text)`,
  );
  await pool.query(`INSERT INTO item VALUES (1, 'a', '{"k": 1}'), (2, 'b', null)`);
});

afterAll(async () => {
  await pool?.end();
  await database?.drop();
});

describe("databaseChecksum", () => {
  it("lists every base table but the migration log, quoted as SQL names", async () => {
    expect(await listTables(pool)).toEqual(['public."Other Table"', "public.item"]);
  });

  it("stays put across reads and moves on insert, a one-field update, and delete, naming the table", async () => {
    const tables = await listTables(pool);
    const base = await databaseChecksum(pool, tables);
    await pool.query("SELECT * FROM item");
    expect(changedTables(base, await databaseChecksum(pool, tables))).toEqual([]);
    await pool.query(`UPDATE item SET meta = '{"k": 2}' WHERE id = 1`);
    const updated = await databaseChecksum(pool, tables);
    expect(changedTables(base, updated)).toEqual(["public.item"]);
    await pool.query(`INSERT INTO "Other Table" VALUES (7)`);
    const inserted = await databaseChecksum(pool, tables);
    expect(changedTables(updated, inserted)).toEqual(['public."Other Table"']);
    await pool.query(`DELETE FROM "Other Table"`);
    expect(changedTables(inserted, await databaseChecksum(pool, tables))).toEqual(['public."Other Table"']);
    // Same rows in another physical order: the same fingerprint (rows are sorted as text).
    await pool.query(`UPDATE item SET meta = '{"k": 1}' WHERE id = 1`);
    await pool.query(`VACUUM FULL item`);
    expect((await databaseChecksum(pool, tables)).get("public.item")).toBe(base.get("public.item"));
  });
});
