// `npm run db:migrate`: applies pending migrations to DATABASE_URL.
import { resolve } from "node:path";
import { migrate } from "../src/server/db/migrator";
import { loadControlPlaneEnv } from "../src/server/env";

const env = loadControlPlaneEnv();
if (!env.DATABASE_URL) {
  console.error("DATABASE_URL is not set: db:migrate needs a server (npm start migrates its embedded database itself)");
  process.exit(2);
}
const applied = await migrate(env.DATABASE_URL, resolve("prisma/migrations"));
console.log(
  applied.length ? `applied ${applied.length} migration(s): ${applied.join(", ")}` : "database is up to date",
);
