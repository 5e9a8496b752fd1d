// A fingerprint of every table's rows (count + md5 of the rows as text, in a fixed order), to prove that a
// refused call changed nothing. One query for the whole database.
import type pg from "pg";

export type DatabaseChecksum = Map<string, string>;

/** Tables whose rows are part of the fingerprint: every base table outside the catalogs, but the migration log. */
export async function listTables(client: pg.ClientBase | pg.Pool): Promise<string[]> {
  const { rows } = await client.query<{ name: string }>(`
    SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
    WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema') AND table_name <> '_prisma_migrations'
    ORDER BY 1`);
  return rows.map((r) => r.name);
}

export async function databaseChecksum(
  client: pg.ClientBase | pg.Pool,
  tables: readonly string[],
): Promise<DatabaseChecksum> {
  if (tables.length === 0) return new Map();
  // Table names come from the catalog (format %I), not from input.
  const sql = tables
    .map(
      (t, i) =>
        `SELECT ${i} AS i, count(*)::text || ':' || coalesce(md5(string_agg(x::text, '|' ORDER BY x::text)), '') AS sum FROM ${t} x`,
    )
    .join(" UNION ALL ");
  const { rows } = await client.query<{ i: number; sum: string }>(sql);
  return new Map(rows.map((r) => [tables[r.i]!, r.sum]));
}

/** Tables whose fingerprint differs (present in either). */
export function changedTables(before: DatabaseChecksum, after: DatabaseChecksum): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((n) => before.get(n) !== after.get(n)).sort();
}
