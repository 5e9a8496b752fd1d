// Applies prisma/migrations/*/migration.sql the way `prisma migrate deploy` does, without Prisma's native
// schema engine (which cannot be downloaded offline, TOOLCHAIN.md §4): same `_prisma_migrations` table,
// same advisory lock, checksum = sha256 hex of the file. Unlike Prisma, the row and the migration commit in
// one transaction, so a failed migration leaves nothing half-written behind.
import { createHash, randomUUID } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import pg from "pg";

// The key Prisma's schema engine locks with, so our migrator and a real `prisma migrate deploy` exclude each other.
const PRISMA_ADVISORY_LOCK_KEY = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

export interface LocalMigration {
  name: string;
  sql: string;
  checksum: string;
}

export class MigrationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MigrationError";
  }
}

export function readLocalMigrations(migrationsDir: string): LocalMigration[] {
  if (!existsSync(migrationsDir)) throw new MigrationError(`migrations directory not found: ${migrationsDir}`);
  return readdirSync(migrationsDir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(migrationsDir, entry.name, "migration.sql")))
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(migrationsDir, name, "migration.sql"), "utf8");
      return { name, sql, checksum: createHash("sha256").update(sql).digest("hex") };
    });
}

interface AppliedRow {
  migration_name: string;
  checksum: string;
  finished_at: Date | null;
  rolled_back_at: Date | null;
}

export interface MigrationStatus {
  applied: string[];
  pending: string[];
  current: boolean;
}

/** Runs one SQL statement and returns its rows: a pg client, or a pool's (the health check borrows Prisma's). */
export type SqlRows = (sql: string) => Promise<Record<string, unknown>[]>;

function rowsOf(client: pg.ClientBase): SqlRows {
  return async (sql) => (await client.query(sql)).rows as Record<string, unknown>[];
}

async function appliedRows(rows: SqlRows): Promise<AppliedRow[]> {
  const exists = await rows(`SELECT to_regclass('public._prisma_migrations') IS NOT NULL AS ok`);
  if (!exists[0]?.ok) return [];
  return (await rows(
    `SELECT migration_name, checksum, finished_at, rolled_back_at FROM "_prisma_migrations" ORDER BY started_at`,
  )) as unknown as AppliedRow[];
}

function check(local: LocalMigration[], rows: AppliedRow[]): { pending: LocalMigration[]; applied: string[] } {
  const done = new Map<string, AppliedRow>();
  for (const row of rows) {
    if (row.rolled_back_at) continue;
    if (!row.finished_at) {
      throw new MigrationError(
        `migration ${row.migration_name} failed earlier and is marked unfinished in _prisma_migrations; resolve it first`,
      );
    }
    done.set(row.migration_name, row);
  }
  const localNames = new Set(local.map((m) => m.name));
  for (const name of done.keys()) {
    if (!localNames.has(name))
      throw new MigrationError(
        `the database has migration ${name}, which this code does not know: is the code older than the database?`,
      );
  }
  for (const migration of local) {
    const row = done.get(migration.name);
    if (row && row.checksum !== migration.checksum) {
      throw new MigrationError(`migration ${migration.name} was edited after it was applied (checksum differs)`);
    }
  }
  return { pending: local.filter((m) => !done.has(m.name)), applied: [...done.keys()] };
}

export async function migrationStatus(
  client: pg.ClientBase | SqlRows,
  migrationsDir: string,
): Promise<MigrationStatus> {
  const { pending, applied } = check(
    readLocalMigrations(migrationsDir),
    await appliedRows(typeof client === "function" ? client : rowsOf(client)),
  );
  return { applied, pending: pending.map((m) => m.name), current: pending.length === 0 };
}

/** Applies every pending migration, each in its own transaction. Returns the names applied. */
export async function migrate(connectionString: string, migrationsDir: string): Promise<string[]> {
  const local = readLocalMigrations(migrationsDir);
  const client = new pg.Client({ connectionString });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock($1)", [PRISMA_ADVISORY_LOCK_KEY]);
    await client.query(CREATE_MIGRATIONS_TABLE);
    const { pending } = check(local, await appliedRows(rowsOf(client)));
    for (const migration of pending) {
      try {
        await client.query("BEGIN");
        const id = randomUUID();
        await client.query(
          `INSERT INTO "_prisma_migrations" (id, checksum, migration_name, started_at, applied_steps_count) VALUES ($1, $2, $3, now(), 0)`,
          [id, migration.checksum, migration.name],
        );
        await client.query(migration.sql);
        await client.query(
          `UPDATE "_prisma_migrations" SET finished_at = now(), applied_steps_count = 1 WHERE id = $1`,
          [id],
        );
        await client.query("COMMIT");
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw new MigrationError(`migration ${migration.name} failed: ${(error as Error).message}`);
      }
    }
    return pending.map((m) => m.name);
  } finally {
    await client.query("SELECT pg_advisory_unlock($1)", [PRISMA_ADVISORY_LOCK_KEY]).catch(() => {});
    await client.end();
  }
}
