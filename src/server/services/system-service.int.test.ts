import { randomUUID } from "node:crypto";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, inject, it } from "vitest";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { resetDbForTests } from "@/server/db/client";
import { GET as healthRoute } from "@/app/api/health/route";
import { createDatabase } from "../../../test/find-postgres";
import { checkHealth, healthChecksRun, resetHealthCacheForTests } from "./system-service";

// checkHealth reads DATABASE_URL through the env module, which caches: point it at each case's database.
import * as envModule from "@/server/env";
import { testEnv } from "../../../test/test-env";

const cleanups: Array<() => Promise<void>> = [];
beforeEach(() => resetHealthCacheForTests());
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
  resetHealthCacheForTests();
});

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
    const report = await withEnv({ DATABASE_URL: db.url }, () => checkHealth());
    expect(report.status).toBe("degraded");
    expect(report.checks.database.ok).toBe(true);
    expect(report.checks.migrations.ok).toBe(false);
    expect(report.checks.migrations.pending!.length).toBeGreaterThan(0);
  });

  it("is degraded with the reason when the database is unreachable, and probes see neither reason nor host", async () => {
    const { report, probe } = await withEnv(
      { DATABASE_URL: "postgresql://nobody:s3cret@127.0.0.1:1/none" },
      async () => {
        const report = await checkHealth();
        resetHealthCacheForTests();
        const response = await healthRoute();
        return { report, probe: { status: response.status, text: await response.text() } };
      },
    );
    expect(report.status).toBe("degraded");
    expect(report.checks.database.ok).toBe(false);
    expect(report.checks.database.error).toMatch(/ECONNREFUSED|connect|reach/);
    expect(JSON.stringify(report)).not.toContain("s3cret");
    // The anonymous probe: the verdict per check, nothing a scanner could use.
    expect(probe.status).toBe(503);
    expect(JSON.parse(probe.text)).toEqual({
      status: "degraded",
      checks: { database: { ok: false }, migrations: { ok: false } },
    });
    expect(probe.text).not.toMatch(/127\.0\.0\.1|ECONNREFUSED|version/);
  });

  it("borrows the pool's connections: 60 concurrent uncached checks stay within a role allowed 3 connections", async () => {
    // A role that may hold 3 connections at once, and a pool of 2 for it. A check that opened its own client
    // would run into "too many connections for role" long before 60.
    const admin = new pg.Client({ connectionString: inject("adminDatabaseUrl") });
    await admin.connect();
    const role = `health_${randomUUID().slice(0, 8)}`;
    const base = new URL(testEnv.DATABASE_URL!);
    await admin.query(`CREATE ROLE ${role} LOGIN CONNECTION LIMIT 3`);
    const target = new pg.Client({ connectionString: base.toString() });
    await target.connect();
    await target.query(`GRANT SELECT ON "_prisma_migrations" TO ${role}`);
    await target.end();
    cleanups.push(async () => {
      const again = new pg.Client({ connectionString: base.toString() });
      await again.connect();
      await again.query(`REVOKE ALL ON "_prisma_migrations" FROM ${role}`);
      await again.end();
      await admin.query(`DROP ROLE ${role}`);
      await admin.end();
    });
    const roleUrl = new URL(base);
    roleUrl.username = role;
    roleUrl.password = "";
    const reports = await withEnv({ DATABASE_URL: roleUrl.toString(), DATABASE_POOL_MAX: "2" }, () =>
      Promise.all(
        Array.from({ length: 60 }, () => {
          resetHealthCacheForTests();
          return checkHealth();
        }),
      ),
    );
    const failures = reports
      .filter((r) => r.status !== "ok")
      .map((r) => r.checks.database.error ?? r.checks.migrations.error);
    expect(failures).toEqual([]);
  });

  it("shares one check among concurrent callers and reuses it for a second", async () => {
    const before = healthChecksRun();
    const now = Date.now();
    const reports = await Promise.all(Array.from({ length: 200 }, () => checkHealth(now)));
    expect(new Set(reports).size).toBe(1);
    expect(healthChecksRun() - before).toBe(1);
    await checkHealth(now + 999);
    expect(healthChecksRun() - before).toBe(1);
    await checkHealth(now + 1_000);
    expect(healthChecksRun() - before).toBe(2);
  });

  it("refuses a tRPC batch of more than 20 calls with a JSON error, before running any", async () => {
    const call = (n: number) =>
      handleTrpcRequest(
        new Request(
          `http://localhost:3000/api/trpc/${Array.from({ length: n }, () => "system.health").join(",")}?batch=1&input=${encodeURIComponent(JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [i, {}]))))}`,
        ),
      );
    const before = healthChecksRun();
    const refused = await call(1_000);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toMatch(/Batch call exceeds maximum size/);
    expect(healthChecksRun()).toBe(before);
    const allowed = await call(20);
    expect(allowed.status).toBe(200);
    const answers = (await allowed.json()) as Array<{ result: { data: { json: unknown } } }>;
    expect(answers).toHaveLength(20);
    // Anonymous: the verdict per check only.
    expect(answers[0]!.result.data.json).toEqual({
      status: "ok",
      checks: { database: { ok: true }, migrations: { ok: true } },
    });
  });
});

async function withEnv<T>(vars: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  const previous = Object.fromEntries(Object.keys(vars).map((k) => [k, testEnv[k]]));
  Object.assign(testEnv, vars);
  envModule.resetEnvForTests();
  // The Prisma client is per process too: the next db() opens a pool on the new URL.
  await resetDbForTests();
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(previous)) {
      if (v === undefined) delete testEnv[k];
      else testEnv[k] = v;
    }
    envModule.resetEnvForTests();
    await resetDbForTests();
  }
}
