// A Prisma client on the database of the `npm start` the e2e suite runs against (its embedded PostgreSQL), for
// arranging fixtures and reading what the pages should show. Each spec owns its client and disconnects it.
import { PrismaPg } from "@prisma/adapter-pg";
import { join } from "node:path";
import { PrismaClient } from "../src/generated/prisma/client";
import { embeddedPostgresUrl } from "../src/server/db/embedded-postgres";
import { testEnv } from "../test/test-env";

/**
 * The embedded database's URL, with the superuser password npm start generated into its data dir. Playwright
 * loads the specs once before npm start runs (to list them; no query is made then): without a cluster yet, the
 * URL has no password, and the workers, which load them again once it runs, get the real one.
 */
export function e2eDatabaseUrl(): string {
  const port = Number(testEnv.E2E_PG_PORT ?? 54339);
  return (
    embeddedPostgresUrl(join(testEnv.E2E_DATA_DIR ?? "", "data", "pg"), port, "packrat") ??
    `postgresql://postgres@127.0.0.1:${port}/packrat`
  );
}

export function newE2ePrisma(): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: e2eDatabaseUrl(), max: 2 }) });
}
