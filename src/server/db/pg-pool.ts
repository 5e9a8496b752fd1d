// The process's one PostgreSQL pool. Prisma runs on it (through its pg driver adapter) and so do the few hot
// statements written for plain pg (metrics), so the process holds DATABASE_POOL_MAX connections, not twice that; the
// lease renewals have one connection of their own (leasePool).
// On globalThis: Next's bundled route handlers and the agent front (scripts/serve.ts) load this module separately.
import pg from "pg";
import { env } from "@/server/env";

const holder = globalThis as unknown as { packratPgPool?: pg.Pool; packratLeasePool?: pg.Pool };

/** How long a request waits for a pooled connection before it is answered 503 (retry later) rather than queueing on. */
const CONNECT_TIMEOUT_MS = 10_000;

function newPool(max: number, options?: string): pg.Pool {
  const { DATABASE_URL } = env();
  if (!DATABASE_URL) throw new Error("DATABASE_URL is not set (npm start sets it for the embedded database)");
  const pool = new pg.Pool({
    connectionString: DATABASE_URL,
    max,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(options ? { options } : {}),
  });
  // An idle connection the server dropped: the pool replaces it; without a listener the process would exit.
  pool.on("error", () => {});
  return pool;
}

export function pgPool(): pg.Pool {
  return (holder.packratPgPool ??= newPool(env().DATABASE_POOL_MAX));
}

/**
 * The agents' lease renewals have a connection of their own (their grouped statements go one at a time): liveness
 * never waits in the pool's queue behind metrics, long-polls or a dashboard's burst, so a loaded replica answers
 * heartbeats late rather than letting leases expire. Kubernetes gives node leases a priority level of their own for
 * the same reason. It runs one prepared statement, whose generic plan (an index lookup per token and agent) is the
 * right one for any group: planning it anew for each group's array, as PostgreSQL otherwise keeps doing, cost as
 * much again as running it.
 */
export function leasePool(): pg.Pool {
  return (holder.packratLeasePool ??= newPool(1, "-c plan_cache_mode=force_generic_plan"));
}

/** Tests point DATABASE_URL at another database or role; production never calls this. */
export async function resetPgPoolForTests(): Promise<void> {
  const pools = [holder.packratPgPool, holder.packratLeasePool];
  holder.packratPgPool = holder.packratLeasePool = undefined;
  await Promise.all(pools.map((pool) => pool?.end()));
}
