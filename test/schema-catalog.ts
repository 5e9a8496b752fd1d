// A comparable snapshot of what schema.prisma can describe in schema `public`: tables, columns (type,
// nullability, default), enums, indexes, and constraints (primary, unique, foreign keys). Triggers and
// functions are migration-only (e.g. the audit log's append-only trigger) and are deliberately not compared.
// A partitioned table (migration-only too: schema.prisma cannot say "partitioned") is compared by its parent's
// definition: its partitions are skipped, and the `ON ONLY` PostgreSQL prints for a partitioned parent's indexes
// is dropped, so the parent reads as the plain table Prisma would create.
import pg from "pg";

/** Relations in `public` that are partitions of another table, by name; their columns, indexes and constraints mirror the parent's. */
const NOT_A_PARTITION = `NOT EXISTS (SELECT 1 FROM pg_class pc JOIN pg_namespace pn ON pn.oid = pc.relnamespace
  WHERE pn.nspname = 'public' AND pc.relispartition AND pc.relname = %s)`;

export async function catalogSnapshot(url: string): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows.map((r) => Object.values(r).join(" | ")).sort();
    const notPartition = (column: string) => NOT_A_PARTITION.replace("%s", column);
    return {
      columns:
        await rows(`SELECT table_name, column_name, data_type, udt_name, is_nullable, coalesce(column_default, ''),
          coalesce(character_maximum_length::text, ''), coalesce(numeric_precision::text, ''), coalesce(datetime_precision::text, '')
        FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'
          AND ${notPartition("table_name")}`),
      enums: await rows(`SELECT t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = 'public' GROUP BY t.typname`),
      indexes: await rows(`SELECT tablename, indexname, replace(indexdef, ' ON ONLY ', ' ON ') FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> '_prisma_migrations' AND ${notPartition("tablename")}`),
      constraints: await rows(`SELECT rel.relname, con.conname, con.contype, pg_get_constraintdef(con.oid)
        FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
        WHERE n.nspname = 'public' AND rel.relname <> '_prisma_migrations' AND con.contype IN ('p', 'u', 'f', 'c')
          AND NOT rel.relispartition`),
      // Tables themselves, so that a table missing or extra shows even without columns; partitions skipped, a
      // partitioned parent listed as a plain table.
      tables: await rows(`SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.relname <> '_prisma_migrations'`),
    };
  } finally {
    await client.end();
  }
}
