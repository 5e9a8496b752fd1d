// Prints the SQL for a new migration: `npm run db:diff -- [--from OLD_SCHEMA.prisma]` (default: from empty).
// Needs a reachable PostgreSQL (DATABASE_URL, else 127.0.0.1:5432).
// Save it as prisma/migrations/<timestamp>_<name>/migration.sql.
import { loadControlPlaneEnv } from "../src/server/env";
import { schemaDiffSql, schemaFile } from "./lib/schema-sql";

const fromIndex = process.argv.indexOf("--from");
const fromSchemaFile = fromIndex > 0 ? process.argv[fromIndex + 1] : undefined;
// Any reachable PostgreSQL will do: the diff engine connects but reads nothing.
const databaseUrl = loadControlPlaneEnv().DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
process.stdout.write(schemaDiffSql({ fromSchemaFile, toSchemaFile: schemaFile, databaseUrl }));
