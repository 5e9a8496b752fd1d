// Health and version: what load balancers, probes and the dashboard's status badge read. A probe flood must
// not become a database flood: the check borrows one connection from the process's pool (never opens its own),
// concurrent callers share the one check in flight, and a result is reused for HEALTH_CACHE_MS.
import { resolve } from "node:path";
import { db } from "@/server/db/client";
import { migrationStatus } from "@/server/db/migrator";
import { packratVersion } from "@/server/version";

export interface HealthReport {
  status: "ok" | "degraded";
  version: string;
  checks: {
    database: { ok: boolean; latencyMs?: number; error?: string };
    migrations: { ok: boolean; applied?: number; pending?: string[]; error?: string };
  };
}

/** What an anonymous caller sees: which check failed, never versions, host names or driver messages. */
export interface PublicHealthReport {
  status: "ok" | "degraded";
  checks: { database: { ok: boolean }; migrations: { ok: boolean } };
}

export const HEALTH_CACHE_MS = 1_000;
/** A paused or unreachable database answers "degraded" after this long instead of holding the probe. */
const HEALTH_QUERY_TIMEOUT_MS = 2_000;

// Route handlers and tRPC do not share module state under Next, so the cache lives on globalThis.
const shared = globalThis as unknown as {
  packratHealth?: { at: number; report: Promise<HealthReport> };
  packratHealthChecks?: number;
};

/** The health report, at most HEALTH_CACHE_MS old; concurrent callers share one check. */
export function checkHealth(now: number = Date.now()): Promise<HealthReport> {
  const cached = shared.packratHealth;
  if (cached && now - cached.at < HEALTH_CACHE_MS) return cached.report;
  const report = runHealthCheck();
  shared.packratHealth = { at: now, report };
  return report;
}

/** How many checks really ran in this process (the cache's test reads it). */
export function healthChecksRun(): number {
  return shared.packratHealthChecks ?? 0;
}

export function publicHealth(report: HealthReport): PublicHealthReport {
  return {
    status: report.status,
    checks: { database: { ok: report.checks.database.ok }, migrations: { ok: report.checks.migrations.ok } },
  };
}

/** Tests point the env at another database between cases; production never calls this. */
export function resetHealthCacheForTests(): void {
  shared.packratHealth = undefined;
}

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what} did not answer within ${HEALTH_QUERY_TIMEOUT_MS} ms`)),
      HEALTH_QUERY_TIMEOUT_MS,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// Prisma's message opens with the call that failed; the driver's reason is its last line.
function lastLine(message: string): string {
  return (
    message
      .trim()
      .split("\n")
      .filter((line) => line.trim())
      .pop()
      ?.trim() ?? message
  );
}

async function runHealthCheck(): Promise<HealthReport> {
  shared.packratHealthChecks = (shared.packratHealthChecks ?? 0) + 1;
  const report: HealthReport = {
    status: "ok",
    version: packratVersion,
    checks: { database: { ok: false }, migrations: { ok: false } },
  };
  try {
    const client = db();
    const started = performance.now();
    await withTimeout(client.$queryRawUnsafe("SELECT 1"), "the database");
    report.checks.database = { ok: true, latencyMs: Math.round((performance.now() - started) * 100) / 100 };
    try {
      const rows = (sql: string) => client.$queryRawUnsafe<Record<string, unknown>[]>(sql);
      const status = await withTimeout(migrationStatus(rows, resolve("prisma/migrations")), "the migrations table");
      report.checks.migrations = { ok: status.current, applied: status.applied.length, pending: status.pending };
    } catch (error) {
      report.checks.migrations = { ok: false, error: (error as Error).message };
    }
  } catch (error) {
    // Shown to signed-in users only (publicHealth drops it); a connection error names host and port, never the password.
    report.checks.database = { ok: false, error: lastLine((error as Error).message) };
  }
  if (!report.checks.database.ok || !report.checks.migrations.ok) report.status = "degraded";
  return report;
}
