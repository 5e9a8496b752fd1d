// The database side of procedure fuzzing: a migrated database with the fixtures, kept as a template, and a fresh
// copy of it per procedure (CREATE DATABASE … TEMPLATE: a file copy, a fraction of a second), so a procedure that
// deletes the fixture deployment does not leave every later procedure with "not found" only.
import { randomBytes } from "node:crypto";
import { resolve } from "node:path";
import pg from "pg";
import type { SessionUser } from "@/server/auth/session";
import { db, resetDbForTests } from "@/server/db/client";
import { migrate } from "@/server/db/migrator";
import { resetEnvForTests } from "@/server/env";
import { databaseChecksum, listTables, type DatabaseChecksum } from "./database-checksum";
import { createProcedureFixtures, type NamedIds } from "./procedure-fixtures";
import { testEnv } from "../../../test/test-env";

export interface FuzzWorld {
  admin: SessionUser;
  /** Ids of the fixture rows (the same in every copy). */
  ids: string[];
  named: NamedIds;
  /** Points the server's database client (db()) and the checksum at a new copy of the fixture database. */
  fresh(): Promise<void>;
  snapshot(): Promise<DatabaseChecksum>;
  close(): Promise<void>;
}

function urlOf(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function admin<T>(adminUrl: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/**
 * db() keeps one client and one pool per process on globalThis; closing both makes the next db() connect to
 * DATABASE_URL anew (and leaves no connection to a database about to be copied or dropped).
 */
export async function pointServerAt(url: string): Promise<void> {
  await resetDbForTests();
  testEnv.DATABASE_URL = url;
  resetEnvForTests();
}

export async function createFuzzWorld(adminUrl: string, dataDir: string): Promise<FuzzWorld> {
  const prefix = `packrat_fuzz_${randomBytes(4).toString("hex")}`;
  const template = `${prefix}_template`;
  await admin(adminUrl, (c) => c.query(`CREATE DATABASE "${template}"`));
  await migrate(urlOf(adminUrl, template), resolve("prisma/migrations"));
  testEnv.PACKRAT_DATA_DIR = dataDir;
  await pointServerAt(urlOf(adminUrl, template));
  const fixtures = await createProcedureFixtures(db(), dataDir);
  // A template must have no connections while it is copied.
  await pointServerAt(adminUrl);

  let pool: pg.Pool | undefined;
  let tables: string[] = [];
  let copies = 0;
  let current: string | undefined;
  const dropCurrent = async () => {
    await pool?.end();
    pool = undefined;
    await pointServerAt(adminUrl);
    if (current) await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${current}" WITH (FORCE)`));
    current = undefined;
  };
  return {
    admin: fixtures.admin,
    ids: fixtures.ids,
    named: fixtures.named,
    async fresh() {
      await dropCurrent();
      const name = `${prefix}_${++copies}`;
      await admin(adminUrl, (c) => c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`));
      current = name;
      const url = urlOf(adminUrl, name);
      await pointServerAt(url);
      pool = new pg.Pool({ connectionString: url, max: 1 });
      // pool.end() resolves before its client's socket is closed; the DROP … WITH (FORCE) that follows can then
      // terminate that socket, which the pool re-emits as an error: expected, and nothing to do about it.
      pool.on("error", () => {});
      tables = await listTables(pool);
    },
    snapshot() {
      if (!pool) throw new Error("call fresh() before snapshot()");
      return databaseChecksum(pool, tables);
    },
    async close() {
      await dropCurrent();
      await admin(adminUrl, (c) => c.query(`DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`));
    },
  };
}
