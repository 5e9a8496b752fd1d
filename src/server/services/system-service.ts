// Health and version: what load balancers, probes and the dashboard's status badge read.
import { resolve } from "node:path";
import pg from "pg";
import { migrationStatus } from "@/server/db/migrator";
import { env } from "@/server/env";
import { packratVersion } from "@/server/version";

export interface HealthReport {
  status: "ok" | "degraded";
  version: string;
  checks: {
    database: { ok: boolean; latencyMs?: number; error?: string };
    migrations: { ok: boolean; applied?: number; pending?: string[]; error?: string };
  };
}

export async function checkHealth(): Promise<HealthReport> {
  const report: HealthReport = {
    status: "ok",
    version: packratVersion,
    checks: { database: { ok: false }, migrations: { ok: false } },
  };
  const url = env().DATABASE_URL;
  if (!url) {
    report.checks.database.error = "DATABASE_URL is not set";
    report.status = "degraded";
    return report;
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    const started = performance.now();
    await client.connect();
    await client.query("SELECT 1");
    report.checks.database = { ok: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    try {
      const status = await migrationStatus(client, resolve("prisma/migrations"));
      report.checks.migrations = { ok: status.current, applied: status.applied.length, pending: status.pending };
    } catch (error) {
      report.checks.migrations = { ok: false, error: (error as Error).message };
    }
  } catch (error) {
    // The message of a failed connection names host and port, never the password.
    report.checks.database = { ok: false, error: (error as Error).message };
  } finally {
    await client.end().catch(() => {});
  }
  if (!report.checks.database.ok || !report.checks.migrations.ok) report.status = "degraded";
  return report;
}
