import { createHash } from "node:crypto";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../../../test/find-postgres";
import { migrate, migrationStatus } from "./migrator";

const realMigrations = resolve("prisma/migrations");
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function freshDb() {
  const db = await createDatabase(inject("adminDatabaseUrl"), "packrat_migrator");
  cleanups.push(db.drop);
  return db.url;
}

function tempMigrations(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "packrat-migrations-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  for (const [name, sql] of Object.entries(files)) {
    mkdirSync(join(dir, name));
    writeFileSync(join(dir, name, "migration.sql"), sql);
  }
  return dir;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("migrator", () => {
  it("records each migration like prisma migrate deploy: sha256 checksum, finished, one step", async () => {
    const url = await freshDb();
    const applied = await migrate(url, realMigrations);
    expect(applied.length).toBeGreaterThan(0);
    const rows = await query<{
      migration_name: string;
      checksum: string;
      finished_at: Date | null;
      applied_steps_count: number;
    }>(
      url,
      `SELECT migration_name, checksum, finished_at, applied_steps_count FROM "_prisma_migrations" ORDER BY migration_name`,
    );
    expect(rows.map((r) => r.migration_name)).toEqual(applied);
    for (const row of rows) {
      const sql = readFileSync(join(realMigrations, row.migration_name, "migration.sql"));
      expect(row.checksum).toBe(createHash("sha256").update(sql).digest("hex"));
      expect(row.finished_at).toBeInstanceOf(Date);
      expect(row.applied_steps_count).toBe(1);
    }
  });

  it("is idempotent: a second run applies nothing and status is current", async () => {
    const url = await freshDb();
    await migrate(url, realMigrations);
    expect(await migrate(url, realMigrations)).toEqual([]);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const status = await migrationStatus(client, realMigrations);
    await client.end();
    expect(status.current).toBe(true);
    expect(status.pending).toEqual([]);
  });

  it("rolls back a failing migration completely: no row, no partial table", async () => {
    const url = await freshDb();
    const dir = tempMigrations({
      "001_ok": "CREATE TABLE a (id int);",
      "002_bad": "CREATE TABLE b (id int); SELECT * FROM no_such_table;",
    });
    await expect(migrate(url, dir)).rejects.toThrow(/002_bad failed: .*no_such_table/);
    const names = await query<{ migration_name: string }>(url, `SELECT migration_name FROM "_prisma_migrations"`);
    expect(names.map((r) => r.migration_name)).toEqual(["001_ok"]);
    const tables = await query<{ t: string | null }>(url, `SELECT to_regclass('public.b')::text AS t`);
    expect(tables[0]!.t).toBeNull();
  });

  it("refuses a migration edited after it was applied", async () => {
    const url = await freshDb();
    const dir = tempMigrations({ "001_init": "CREATE TABLE a (id int);" });
    await migrate(url, dir);
    writeFileSync(join(dir, "001_init", "migration.sql"), "CREATE TABLE a (id bigint);");
    await expect(migrate(url, dir)).rejects.toThrow(/001_init was edited after it was applied/);
  });

  it("refuses a database that has a migration this code does not know", async () => {
    const url = await freshDb();
    const dir = tempMigrations({ "001_init": "CREATE TABLE a (id int);", "002_more": "CREATE TABLE b (id int);" });
    await migrate(url, dir);
    const older = tempMigrations({ "001_init": "CREATE TABLE a (id int);" });
    await expect(migrate(url, older)).rejects.toThrow(/has migration 002_more/);
  });

  it("serializes concurrent runs with the advisory lock: each migration applied once", async () => {
    const url = await freshDb();
    const dir = mkdtempSync(join(tmpdir(), "packrat-migrations-copy-"));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    cpSync(realMigrations, dir, { recursive: true });
    const results = await Promise.all([migrate(url, dir), migrate(url, dir), migrate(url, dir)]);
    expect(results.flat().length).toBe(results.find((r) => r.length > 0)!.length);
    const rows = await query<{ n: string }>(url, `SELECT count(*)::text AS n FROM "_prisma_migrations"`);
    expect(Number(rows[0]!.n)).toBe(results.flat().length);
  });
});
