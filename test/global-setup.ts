// Vitest global setup for the integration suite: one PostgreSQL server for the run, one fresh migrated
// database that tests share (DATABASE_URL), dropped at the end. Tests that need their own create more.
import { resolve } from "node:path";
import type { TestProject } from "vitest/node";
import { findTestPostgres, createDatabase } from "./find-postgres";
import { migrate } from "../src/server/db/migrator";
import { recordDatabaseSecrets } from "./record-database-secrets";
import { testEnv } from "./test-env";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    databaseUrl: string;
  }
}

export default async function setup(project: TestProject) {
  const server = await findTestPostgres(testEnv);
  const database = await createDatabase(server.adminUrl);
  await migrate(database.url, resolve("prisma/migrations"));
  project.provide("adminDatabaseUrl", server.adminUrl);
  project.provide("databaseUrl", database.url);
  console.log(`[integration] PostgreSQL from ${server.source}; database ${database.name}`);
  return async () => {
    // Sessions and password hashes the tests left behind are secrets the CI scan looks for in the logs.
    await recordDatabaseSecrets(database.url).catch((error: Error) =>
      console.warn(`[integration] could not record the database's secrets: ${error.message}`),
    );
    await database.drop();
    await server.stop();
  };
}
