// Pure helpers of the cost page: number formats and the CSV export of the report (full precision, one row per
// deployed model). No React here.
import type { CsvTable } from "@/lib/planning/csv";
import type { CostRow } from "@/server/services/cost-report";

/** A date to the minute, in UTC: "2026-12-03 06:31 UTC". */
export function formatUtcMinute(d: Date): string {
  return `${d.toISOString().replace("T", " ").slice(0, 16)} UTC`;
}

/** Dollars: cents above $1, four significant figures below (a cost per 1M is often a fraction of a cent). */
export function formatUsd(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  if (Math.abs(v) >= 1) return `$${v.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (v === 0) return "$0";
  return `$${Number(v.toPrecision(3))}`;
}

/** Rates: three significant figures, thousands grouped. */
export function formatRate(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return "—";
  if (Math.abs(v) >= 1000) return Math.round(v).toLocaleString("en-US");
  if (v === 0) return "0";
  return Number(v.toPrecision(3)).toString();
}

export function formatCount(v: number): string {
  return Math.round(v).toLocaleString("en-US");
}

/** Reported minutes that had no price in effect (left out of the cost): "" when there are none. */
export function unpricedNote(minutes: number, seconds: number): string {
  if (minutes <= 0) return "";
  return `${formatCount(minutes)} reported minute${minutes === 1 ? "" : "s"} (${formatRate(seconds / 3600)} h) had no price in effect: not counted`;
}

export const PERIOD_LABELS = { "24h": "last 24 hours", "7d": "last 7 days", "30d": "last 30 days" } as const;

export const COST_CSV_COLUMNS = [
  "model",
  "version",
  "host",
  "hardware class",
  "price $/h",
  "demo price",
  "generation",
  "slo deadline ms",
  "slo quantile",
  "capacity req/s (measured)",
  "capacity load test",
  "goodput within SLO per hour (measured)",
  "within SLO",
  "late",
  "rejected",
  "fallback",
  "reported s",
  "reported s without a price",
  "period cost $ (prices then)",
  "cost per 1M inferences at capacity $",
  "cost per 1M inferences actual $",
  "peak req/s",
  "peak source",
  "replicas base",
  "replicas with headroom",
  "replicas with N+k",
  "monthly cost $ (730 h)",
  "running latency ms (profile)",
  "default <1,T,B> latency ms (profile)",
  "cost per 1M running $",
  "cost per 1M default $",
  "saving per 1M $",
] as const;

export function costCsvTable(rows: readonly CostRow[]): CsvTable {
  return {
    columns: COST_CSV_COLUMNS,
    rows: rows.map((r) => [
      r.modelName,
      r.modelVersion,
      r.hostName,
      r.hardwareClass,
      r.price?.hourlyUsd,
      r.price ? r.price.demo : null,
      r.generation,
      r.slo?.deadlineMs,
      r.slo?.quantile,
      r.capacity?.ratePerS,
      r.capacity?.loadTestId,
      r.goodputPerHour,
      r.usage.withinSlo,
      Math.max(0, r.usage.completed - r.usage.withinSlo),
      r.usage.rejected,
      0,
      r.usage.windowS,
      r.priced.unpricedS,
      r.actual?.windowCostUsd,
      r.capacityCostPerMillionUsd,
      r.actual?.costPerMillionUsd,
      r.peakPerS,
      r.peakSource,
      r.replicas?.base,
      r.replicas?.withHeadroom,
      r.replicas?.total,
      r.monthlyCostUsd,
      "missing" in r.comparison ? null : r.comparison.runningLatencyMs,
      "missing" in r.comparison ? null : r.comparison.defaultLatencyMs,
      r.saving?.runningCostPerMillionUsd,
      r.saving?.defaultCostPerMillionUsd,
      r.saving?.costSavingPerMillionUsd,
    ]),
  };
}

/** Rates typed into an input: three significant figures (the 7-day peak is a long fraction). */
export function roundForInput(v: number | null): number | "" {
  return v === null ? "" : Number(v.toPrecision(3));
}

/**
 * The trend's time axis: the whole period in its buckets (hours for 24 h, days otherwise, UTC), with at most eight
 * round ticks, so one bucket of data still sits on a readable timeline.
 */
export function trendAxis(since: Date, until: Date, hourly: boolean): { domain: [number, number]; ticks: number[] } {
  const step = hourly ? 3_600_000 : 86_400_000;
  const from = Math.floor(since.getTime() / step) * step;
  const to = Math.floor(until.getTime() / step) * step;
  const buckets = Math.round((to - from) / step);
  const every = Math.max(1, Math.ceil(buckets / 7));
  const ticks: number[] = [];
  for (let t = to; t >= from; t -= every * step) ticks.unshift(t);
  // Half a bucket either side: the first and last buckets' points are drawn whole, not cut by the axes.
  return { domain: [from - step / 2, to + step / 2], ticks };
}

/** Axis ticks in dollars, short enough to leave room for the axis title. */
export function formatUsdTick(v: number): string {
  return v >= 10 ? `$${Math.round(v).toLocaleString("en-US")}` : `$${Number(v.toPrecision(2))}`;
}
