// Keeps the UTC-day partitions of metrics_rollup and metrics_rollup_part (see the migrations partition_metrics_rollup
// and metrics_rollup_parts), the same days for both: today's and the next
// days' exist before their rows arrive, and days wholly past the retention period are dropped as whole tables,
// which costs nothing like a DELETE of a day of rows (no dead tuples, no vacuum, no index bloat).
// agent_heartbeat is not partitioned: it keeps one hour, a DELETE of that is small, and the crash-loop alert reads
// only that last hour.
import type { PrismaClient } from "@/generated/prisma/client";
import { planDayPartitions, type RangePartition } from "@/core/retention/partition-plan";
import { db } from "@/server/db/client";

/** The day-partitioned tables, each with its DEFAULT partition; a pass plans and changes both alike. */
const TABLES = [
  { table: "metrics_rollup", defaultPartition: "metrics_rollup_default" },
  { table: "metrics_rollup_part", defaultPartition: "metrics_rollup_part_default" },
] as const;
/** Days after today that already have a partition: a missed night of maintenance still leaves one ready. */
export const METRICS_PARTITIONS_AHEAD_DAYS = 2;
/** pg_advisory_xact_lock key: one maintainer at a time across replicas and the start-up run. */
const LOCK_KEY = "packrat:metrics_rollup-partitions";

export interface MetricsPartitionsResult {
  /** Partitions created and dropped, both tables' (metrics_rollup_pYYYYMMDD, metrics_rollup_part_pYYYYMMDD). */
  created: string[];
  dropped: string[];
  /** Rows deleted from the DEFAULT partition for being older than the oldest day kept. */
  defaultRowsExpired: number;
  /** Rows moved from DEFAULT into a day partition created for them. */
  rowsMoved: number;
}

const quote = (identifier: string) => `"${identifier.replace(/"/g, '""')}"`;
/** A timestamp-without-time-zone literal for an epoch ms (UTC, as Prisma stores DateTime). */
const literal = (ms: number) => `'${new Date(ms).toISOString().replace("T", " ").replace("Z", "")}'::timestamp`;

/** `FOR VALUES FROM ('2026-12-04 00:00:00') TO ('2026-12-05 00:00:00')` (DateStyle ISO) → ms bounds. */
function parseRangeBound(bound: string): { fromMs: number; toMs: number } | undefined {
  const match = /FROM \((MINVALUE|'[^']*')\) TO \((MAXVALUE|'[^']*')\)/.exec(bound);
  if (!match) return undefined;
  const ms = (value: string, infinite: number) =>
    value.startsWith("'") ? Date.parse(`${value.slice(1, -1).replace(" ", "T")}Z`) : infinite;
  const fromMs = ms(match[1]!, -Infinity);
  const toMs = ms(match[2]!, Infinity);
  return Number.isNaN(fromMs) || Number.isNaN(toMs) ? undefined : { fromMs, toMs };
}

/**
 * One pass, in one transaction under an advisory lock, so concurrent runs serialize and a repeat finds nothing
 * to do: create the missing day partitions (moving any rows the DEFAULT partition holds for those days into them),
 * drop the partitions wholly older than now − retentionDays, and delete expired rows left in DEFAULT.
 */
export async function maintainMetricsPartitions(
  retentionDays: number,
  now: Date = new Date(),
  prisma: PrismaClient = db(),
): Promise<MetricsPartitionsResult> {
  return prisma.$transaction(
    async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${LOCK_KEY}))`;
      // pg_get_expr prints bounds in the session's DateStyle; parseRangeBound reads ISO.
      await tx.$executeRawUnsafe(`SET LOCAL datestyle = 'ISO, YMD'`);
      const plans = [];
      for (const { table, defaultPartition } of TABLES) {
        const rows = await tx.$queryRaw<Array<{ name: string; bound: string }>>`
          SELECT c.relname AS name, pg_get_expr(c.relpartbound, c.oid) AS bound
          FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
          JOIN pg_namespace n ON n.oid = p.relnamespace
          WHERE p.relname = ${table} AND n.nspname = current_schema()`;
        const existing: RangePartition[] = [];
        for (const row of rows) {
          const bounds = parseRangeBound(row.bound);
          if (bounds) existing.push({ name: row.name, ...bounds });
        }
        const plan = planDayPartitions({
          table,
          existing,
          nowMs: now.getTime(),
          retentionDays,
          aheadDays: METRICS_PARTITIONS_AHEAD_DAYS,
        });
        plans.push({ table, defaultPartition, plan });
      }
      if (plans.some(({ plan }) => plan.create.length || plan.drop.length)) {
        // Every lock this pass needs, taken first and at once (both tables, in one order): taking them one by one
        // (DEFAULT's rows, then ATTACH's lock on DEFAULT, then DROP's on the parent) could deadlock with a metrics
        // write holding a row this pass wants to move. Writers wait for the pass; a pass with nothing to create or
        // drop takes none.
        await tx.$executeRawUnsafe(
          `LOCK TABLE ${TABLES.map((t) => quote(t.table)).join(", ")} IN ACCESS EXCLUSIVE MODE`,
        );
      }
      let rowsMoved = 0;
      let defaultRowsExpired = 0;
      for (const { table, defaultPartition, plan } of plans) {
        // Columns by name, not `SELECT *`: a partition's physical column order need not be the parent's.
        const columns = plan.create.length
          ? (
              await tx.$queryRaw<Array<{ name: string }>>`SELECT column_name AS name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`
            )
              .map((c) => quote(c.name))
              .join(", ")
          : "";
        for (const partition of plan.create) {
          const name = quote(partition.name);
          const from = literal(partition.fromMs);
          const to = literal(partition.toMs);
          // Standalone first, then attached: PARTITION OF would refuse while DEFAULT holds rows of that day.
          // ATTACH adds the parent's primary key, index and foreign key to it.
          // INCLUDING STORAGE: a part's histograms stay in its row (STORAGE MAIN), as in the parent's partitions.
          await tx.$executeRawUnsafe(
            `CREATE TABLE ${name} (LIKE ${quote(table)} INCLUDING DEFAULTS INCLUDING STORAGE)`,
          );
          rowsMoved += await tx.$executeRawUnsafe(
            `WITH moved AS (DELETE FROM ${quote(defaultPartition)} WHERE "minute" >= ${from} AND "minute" < ${to} RETURNING *)
             INSERT INTO ${name} (${columns}) SELECT ${columns} FROM moved`,
          );
          await tx.$executeRawUnsafe(
            `ALTER TABLE ${quote(table)} ATTACH PARTITION ${name} FOR VALUES FROM (${from}) TO (${to})`,
          );
        }
        for (const name of plan.drop) {
          await tx.$executeRawUnsafe(`ALTER TABLE ${quote(table)} DETACH PARTITION ${quote(name)}`);
          await tx.$executeRawUnsafe(`DROP TABLE ${quote(name)}`);
        }
        // Rows for days that never had a partition (written while maintenance did not run) expire like the rest.
        defaultRowsExpired += await tx.$executeRawUnsafe(
          `DELETE FROM ${quote(defaultPartition)} WHERE "minute" < ${literal(plan.keepFromMs)}`,
        );
      }
      return {
        created: plans.flatMap(({ plan }) => plan.create.map((p) => p.name)),
        dropped: plans.flatMap(({ plan }) => plan.drop),
        defaultRowsExpired,
        rowsMoved,
      };
    },
    // A day's rows moved out of DEFAULT can take longer than Prisma's 5 s default for interactive transactions.
    { maxWait: 30_000, timeout: 300_000 },
  );
}
