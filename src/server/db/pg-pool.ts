// The process's one PostgreSQL pool. Prisma runs on it (through its pg driver adapter) and so do the few hot
// statements written for plain pg (the heartbeat), so the process holds DATABASE_POOL_MAX connections, not twice that.
// On globalThis: Next's bundled route handlers and the agent front (scripts/serve.ts) load this module separately.
import pg from "pg";
import { env } from "@/server/env";

const holder = globalThis as unknown as { packratPgPool?: pg.Pool };

/** How long a request waits for a pooled connection before it is answered 503 (retry later) rather than queueing on. */
const CONNECT_TIMEOUT_MS = 10_000;

export function pgPool(): pg.Pool {
  if (!holder.packratPgPool) {
    const { DATABASE_URL, DATABASE_POOL_MAX } = env();
    if (!DATABASE_URL) throw new Error("DATABASE_URL is not set (npm start sets it for the embedded database)");
    const pool = new pg.Pool({
      connectionString: DATABASE_URL,
      max: DATABASE_POOL_MAX,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    });
    // An idle connection the server dropped: the pool replaces it; without a listener the process would exit.
    pool.on("error", () => {});
    holder.packratPgPool = pool;
  }
  return holder.packratPgPool;
}

/** Tests point DATABASE_URL at another database or role; production never calls this. */
export async function resetPgPoolForTests(): Promise<void> {
  const pool = holder.packratPgPool;
  holder.packratPgPool = undefined;
  await pool?.end();
}
