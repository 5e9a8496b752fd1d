// Applying the committed migrations to an empty database must yield exactly what schema.prisma describes.
// "What schema.prisma describes" is Prisma's own SQL for it (Prisma 6's WASM engine, offline), applied to a
// second empty database; then both catalogs are compared.
import { resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDatabase } from "./find-postgres";
import { catalogSnapshot } from "./schema-catalog";
import { migrate } from "../src/server/db/migrator";
import { schemaDiffSql, schemaFile } from "../scripts/lib/schema-sql";

describe("migrations match schema.prisma", () => {
  const dropAll: Array<() => Promise<void>> = [];
  let fromMigrations = "";
  let fromSchema = "";

  beforeAll(async () => {
    const admin = inject("adminDatabaseUrl");
    const a = await createDatabase(admin, "packrat_drift_m");
    const b = await createDatabase(admin, "packrat_drift_s");
    dropAll.push(a.drop, b.drop);
    fromMigrations = a.url;
    fromSchema = b.url;
    await migrate(a.url, resolve("prisma/migrations"));
    // A day partition as the job runner attaches them (standalone, then ATTACH): partitions are runtime state, not
    // drift, and must not show in the comparison.
    const migrated = new pg.Client({ connectionString: a.url });
    await migrated.connect();
    await migrated.query(`CREATE TABLE metrics_rollup_p20000101 (LIKE metrics_rollup INCLUDING DEFAULTS)`);
    await migrated.query(
      `ALTER TABLE metrics_rollup ATTACH PARTITION metrics_rollup_p20000101 FOR VALUES FROM ('2000-01-01') TO ('2000-01-02')`,
    );
    await migrated.end();
    const sql = schemaDiffSql({ toSchemaFile: schemaFile, databaseUrl: b.url });
    const client = new pg.Client({ connectionString: b.url });
    await client.connect();
    await client.query(sql);
    await client.end();
  });
  afterAll(async () => {
    for (const drop of dropAll) await drop();
  });

  it("has the same tables, columns, enums, indexes and constraints", async () => {
    const [migrated, described] = await Promise.all([catalogSnapshot(fromMigrations), catalogSnapshot(fromSchema)]);
    expect(described.columns?.length).toBeGreaterThan(0);
    expect(migrated).toEqual(described);
  });
});
