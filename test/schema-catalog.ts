// A comparable snapshot of what schema.prisma can describe in schema `public`: tables, columns (type,
// nullability, default), enums, indexes, and constraints (primary, unique, foreign keys). Triggers and
// functions are migration-only (e.g. the audit log's append-only trigger) and are deliberately not compared.
import pg from "pg";

export async function catalogSnapshot(url: string): Promise<Record<string, string[]>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const rows = async (sql: string) => (await client.query(sql)).rows.map((r) => Object.values(r).join(" | ")).sort();
    return {
      columns:
        await rows(`SELECT table_name, column_name, data_type, udt_name, is_nullable, coalesce(column_default, ''),
          coalesce(character_maximum_length::text, ''), coalesce(numeric_precision::text, ''), coalesce(datetime_precision::text, '')
        FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> '_prisma_migrations'`),
      enums: await rows(`SELECT t.typname, string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder)
        FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace
        WHERE n.nspname = 'public' GROUP BY t.typname`),
      indexes: await rows(`SELECT tablename, indexname, indexdef FROM pg_indexes
        WHERE schemaname = 'public' AND tablename <> '_prisma_migrations'`),
      constraints: await rows(`SELECT rel.relname, con.conname, con.contype, pg_get_constraintdef(con.oid)
        FROM pg_constraint con JOIN pg_class rel ON rel.oid = con.conrelid JOIN pg_namespace n ON n.oid = rel.relnamespace
        WHERE n.nspname = 'public' AND rel.relname <> '_prisma_migrations' AND con.contype IN ('p', 'u', 'f', 'c')`),
    };
  } finally {
    await client.end();
  }
}
