// Where tests get PostgreSQL, in order: TEST_DATABASE_URL (or DATABASE_URL); 127.0.0.1:5432 when it answers;
// otherwise a throwaway embedded cluster under the system temp dir, stopped at the end of the run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:net";
import pg from "pg";
import { startEmbeddedPostgres, removeCluster, type RunningPostgres } from "../src/server/db/embedded-postgres";

export interface TestPostgres {
  /** A URL to a maintenance database on the server, for CREATE/DROP DATABASE. */
  adminUrl: string;
  source: "env" | "local" | "embedded";
  stop: () => Promise<void>;
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1500 });
  try {
    await client.connect();
    await client.query("SELECT 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

export async function findTestPostgres(env: Record<string, string | undefined>): Promise<TestPostgres> {
  const configured = env.TEST_DATABASE_URL || env.DATABASE_URL;
  if (configured) return { adminUrl: configured, source: "env", stop: async () => {} };
  const local = "postgresql://postgres@127.0.0.1:5432/postgres";
  if (await answers(local)) return { adminUrl: local, source: "local", stop: async () => {} };
  const server = await startThrowawayPostgres();
  return { adminUrl: server.adminUrl, source: "embedded", stop: server.stop };
}

export interface ThrowawayPostgres {
  adminUrl: string;
  /** Stops the server and keeps its files (a database outage); `resume` starts it again on the same port. */
  pause: () => Promise<void>;
  resume: () => Promise<void>;
  /** Stops the server and removes the cluster. */
  stop: () => Promise<void>;
}

/** A cluster of its own under the system temp dir, on a free loopback port. */
export async function startThrowawayPostgres(): Promise<ThrowawayPostgres> {
  const root = mkdtempSync(join(tmpdir(), "packrat-test-pg-"));
  const dataDir = join(root, "data");
  const port = await freePort();
  let server: RunningPostgres | undefined = await startEmbeddedPostgres({ dataDir, port });
  return {
    adminUrl: server.url("postgres"),
    pause: async () => {
      await server?.stop();
      server = undefined;
    },
    resume: async () => {
      server ??= await startEmbeddedPostgres({ dataDir, port });
    },
    stop: async () => {
      await server?.stop();
      server = undefined;
      removeCluster(root);
    },
  };
}

/** A new, empty database on the same server; `drop` removes it (connections are terminated first). */
export async function createDatabase(
  adminUrl: string,
  prefix = "packrat_test",
): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}
