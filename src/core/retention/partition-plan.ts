// Which UTC-day partitions of a time-partitioned table to create and which to drop, given the partitions that
// exist, the current time, the retention period and how many days ahead to prepare. Pure: the service that reads
// the catalog and runs the DDL (metrics-partitions-service) decides nothing itself.
//
// Retention drops whole days. With cutoff = now − retentionDays·24 h, a partition [from, to) goes only when all of
// it is older than the cutoff (to ≤ cutoff); the day that straddles the cutoff stays until it has passed entirely.
// So at least retentionDays·24 h of history is kept, and at most one day more.

export const DAY_MS = 86_400_000;

/** A range partition's bounds in epoch ms, [fromMs, toMs); ±Infinity for MINVALUE / MAXVALUE. */
export interface RangePartition {
  name: string;
  fromMs: number;
  toMs: number;
}

export interface PartitionPlanInput {
  /** The parent table's name; day partitions are named `<table>_pYYYYMMDD`. */
  table: string;
  /** The range partitions that exist now (the DEFAULT partition is not one of them). */
  existing: readonly RangePartition[];
  nowMs: number;
  /** Whole days; 0 keeps only the day in progress. */
  retentionDays: number;
  /** Days after today to have a partition for already (today is always included). */
  aheadDays: number;
}

export interface PartitionPlan {
  /** Day partitions to create, oldest first, none overlapping an existing partition. */
  create: RangePartition[];
  /** Names of existing partitions wholly older than the cutoff, oldest first. */
  drop: string[];
  /** Rows before this (start of the oldest UTC day kept) have expired wherever they are, e.g. in DEFAULT. */
  keepFromMs: number;
}

/** Start (00:00 UTC) of the day `ms` falls in; floor, so negative epochs land on their own day too. */
export function utcDayStart(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** `<table>_pYYYYMMDD` for the UTC day starting at `dayStartMs`. */
export function dayPartitionName(table: string, dayStartMs: number): string {
  const iso = new Date(dayStartMs).toISOString(); // YYYY-MM-DDT00:00:00.000Z
  return `${table}_p${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}`;
}

export function planDayPartitions(input: PartitionPlanInput): PartitionPlan {
  const { existing, nowMs, retentionDays, aheadDays } = input;
  if (!Number.isInteger(retentionDays) || retentionDays < 0) throw new RangeError("retentionDays: integer ≥ 0");
  if (!Number.isInteger(aheadDays) || aheadDays < 0) throw new RangeError("aheadDays: integer ≥ 0");
  if (!Number.isFinite(nowMs)) throw new RangeError("nowMs: finite");
  const cutoffMs = nowMs - retentionDays * DAY_MS;
  // E.g. now = 2026-12-04T10:00Z, retention 30: cutoff = 2026-11-04T10:00Z. The partition for 2026-11-03
  // ([11-03, 11-04)) ends at 11-04T00:00 ≤ cutoff and goes; 2026-11-04's ends at 11-05T00:00 > cutoff and stays.
  // keepFrom = 2026-11-04T00:00Z, the start of the oldest day kept.
  const keepFromMs = utcDayStart(cutoffMs);
  const drop = existing
    .filter((p) => p.toMs <= cutoffMs)
    .sort((a, b) => a.fromMs - b.fromMs)
    .map((p) => p.name);
  const dropped = new Set(drop);
  const remaining = existing.filter((p) => !dropped.has(p.name));
  const create: RangePartition[] = [];
  // Today and the aheadDays after it: now = 2026-12-04T23:59Z, ahead 2 → 12-04, 12-05, 12-06. Today's day ends
  // after now ≥ cutoff, so nothing created here is ever due for dropping in the same plan.
  const today = utcDayStart(nowMs);
  for (let day = 0; day <= aheadDays; day++) {
    const fromMs = today + day * DAY_MS;
    const toMs = fromMs + DAY_MS;
    // Any overlap (a day partition already there, or a wider one someone attached) would make ATTACH fail.
    if (remaining.some((p) => p.fromMs < toMs && fromMs < p.toMs)) continue;
    create.push({ name: dayPartitionName(input.table, fromMs), fromMs, toMs });
  }
  return { create, drop, keepFromMs };
}
