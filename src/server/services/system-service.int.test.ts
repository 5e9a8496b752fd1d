import { afterEach, describe, expect, inject, it } from "vitest";
import { createDatabase } from "../../../test/find-postgres";
import { checkHealth } from "./system-service";


// checkHealth reads DATABASE_URL through the env module, which caches: point it at each case's database.
import * as envModule from "@/server/env";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => { while (cleanups.length) await cleanups.pop()!(); });

describe("health", () => {
  it("is ok on the migrated test database", async () => {
    const report = await checkHealth();
    expect(report.status).toBe("ok");
    expect(report.checks.database.ok).toBe(true);
    expect(report.checks.migrations).toMatchObject({ ok: true, pending: [] });
    expect(report.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("is degraded and lists pending migrations on an unmigrated database", async () => {
    const db = await createDatabase(inject("adminDatabaseUrl"), "packrat_health");
    cleanups.push(db.drop);
    const report = await withDatabaseUrl(db.url, checkHealth);
    expect(report.status).toBe("degraded");
    expect(report.checks.database.ok).toBe(true);
    expect(report.checks.migrations.ok).toBe(false);
    expect(report.checks.migrations.pending!.length).toBeGreaterThan(0);
  });

  it("is degraded with the reason when the database is unreachable", async () => {
    const report = await withDatabaseUrl("postgresql://nobody:s3cret@127.0.0.1:1/none", checkHealth);
    expect(report.status).toBe("degraded");
    expect(report.checks.database.ok).toBe(false);
    expect(report.checks.database.error).toMatch(/ECONNREFUSED|connect/);
    expect(JSON.stringify(report)).not.toContain("s3cret");
  });
});

async function withDatabaseUrl<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const previous = process.env.DATABASE_URL;
  process.env.DATABASE_URL = url;
  envModule.resetEnvForTests();
  try { return await fn(); } finally {
    process.env.DATABASE_URL = previous;
    envModule.resetEnvForTests();

  }
}
