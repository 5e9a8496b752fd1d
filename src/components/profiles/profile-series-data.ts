/**
 * The series a profile's charts draw (Packrat Figures 1–2, digest PK-CH-1): latency vs threads per batch size,
 * speedup S(t,b) = L(t₀,b) / L(t,b) and parallel efficiency E = S · t₀ / t (t₀ = 1 when measured, the smallest
 * measured t otherwise), throughput b / L · 1000 samples/s and per-sample latency L / b vs batch size per thread
 * count, and the p99 / mean spread per cell. Only measured cells appear: a partial profile draws what it has.
 */
import type { CsvTable } from "@/lib/planning/csv";
import { indexCells, type ProfileCellData, type ProfileGrid } from "./profile-grid-data";

/** A row per x value; a series' value under its key, absent where the cell is not measured. */
export type SeriesRow = Record<string, number>;

export interface SeriesSpec {
  key: string;
  label: string;
  /** The series' fixed parameter: b for curves over t, t for curves over b. */
  param: number;
}

export interface ChartSeries {
  rows: SeriesRow[];
  series: SeriesSpec[];
  /** Why there is no chart (fewer than two x values measured), or null. */
  empty: string | null;
}

const ascending = (values: readonly number[]) => [...new Set(values)].sort((a, b) => a - b);

function curves(
  xs: readonly number[],
  params: readonly number[],
  xKey: "threads" | "batch",
  seriesKey: (p: number) => string,
  label: (p: number) => string,
  value: (x: number, p: number) => number | undefined,
  what: string,
): ChartSeries {
  const rows: SeriesRow[] = [];
  const used = new Set<number>();
  for (const x of xs) {
    const row: SeriesRow = { [xKey]: x };
    let any = false;
    for (const p of params) {
      const v = value(x, p);
      if (v !== undefined && Number.isFinite(v)) {
        row[seriesKey(p)] = v;
        used.add(p);
        any = true;
      }
    }
    if (any) rows.push(row);
  }
  const series = params.filter((p) => used.has(p)).map((p) => ({ key: seriesKey(p), label: label(p), param: p }));
  const empty =
    rows.length < 2
      ? `Needs measurements at two or more ${what}; ${rows.length === 0 ? "none is" : "one is"} measured yet.`
      : null;
  return { rows, series, empty };
}

const bKey = (b: number) => `b${b}`;
const tKey = (t: number) => `t${t}`;

/** Mean batch latency L(t, b) vs t, one curve per batch size. */
export function latencyVsThreads(grid: ProfileGrid, cells: readonly ProfileCellData[]): ChartSeries {
  const at = indexCells(cells);
  return curves(
    ascending(grid.threads),
    ascending(grid.batches),
    "threads",
    bKey,
    (b) => `b = ${b}`,
    (t, b) => at.get(`${t}×${b}`)?.meanMs,
    "thread counts",
  );
}

/** The thread count speedups are relative to for batch b: 1 when measured, else the smallest measured t. */
export function baselineThreads(grid: ProfileGrid, cells: readonly ProfileCellData[], batch: number): number | null {
  const measured = ascending(cells.filter((c) => c.batch === batch).map((c) => c.threads)).filter((t) =>
    grid.threads.includes(t),
  );
  return measured[0] ?? null;
}

export interface ScalingSeries {
  speedup: ChartSeries;
  efficiency: ChartSeries;
  /** The thread counts speedup is measured from, per batch size (usually all 1). */
  baselines: Map<number, number>;
}

/** Speedup S = L(t₀,b) / L(t,b) and parallel efficiency E = S · t₀ / t (ideal: S = t / t₀, E = 1). */
export function scalingVsThreads(grid: ProfileGrid, cells: readonly ProfileCellData[]): ScalingSeries {
  const at = indexCells(cells);
  const baselines = new Map<number, number>();
  for (const b of ascending(grid.batches)) {
    const t0 = baselineThreads(grid, cells, b);
    if (t0 !== null) baselines.set(b, t0);
  }
  const speedupOf = (t: number, b: number) => {
    const t0 = baselines.get(b);
    const base = t0 === undefined ? undefined : at.get(`${t0}×${b}`)?.meanMs;
    const here = at.get(`${t}×${b}`)?.meanMs;
    return base === undefined || here === undefined || here <= 0 ? undefined : base / here;
  };
  const threads = ascending(grid.threads);
  const batches = ascending(grid.batches);
  return {
    speedup: curves(threads, batches, "threads", bKey, (b) => `b = ${b}`, speedupOf, "thread counts"),
    efficiency: curves(
      threads,
      batches,
      "threads",
      bKey,
      (b) => `b = ${b}`,
      (t, b) => {
        const s = speedupOf(t, b);
        const t0 = baselines.get(b);
        return s === undefined || t0 === undefined ? undefined : (s * t0) / t;
      },
      "thread counts",
    ),
    baselines,
  };
}

/** Throughput b / L(t,b) · 1000 samples/s vs b, one curve per thread count. */
export function throughputVsBatch(grid: ProfileGrid, cells: readonly ProfileCellData[]): ChartSeries {
  const at = indexCells(cells);
  return curves(
    ascending(grid.batches),
    ascending(grid.threads),
    "batch",
    tKey,
    (t) => `t = ${t}`,
    (b, t) => {
      const l = at.get(`${t}×${b}`)?.meanMs;
      return l === undefined || l <= 0 ? undefined : (b / l) * 1000;
    },
    "batch sizes",
  );
}

/** Per-sample latency L(t,b) / b vs b, one curve per thread count. */
export function perSampleLatencyVsBatch(grid: ProfileGrid, cells: readonly ProfileCellData[]): ChartSeries {
  const at = indexCells(cells);
  return curves(
    ascending(grid.batches),
    ascending(grid.threads),
    "batch",
    tKey,
    (t) => `t = ${t}`,
    (b, t) => {
      const l = at.get(`${t}×${b}`)?.meanMs;
      return l === undefined ? undefined : l / b;
    },
    "batch sizes",
  );
}

/** p99 / mean of a cell: 1 is a flat distribution; noise and stragglers push it up. Null for a zero mean. */
export function tailSpread(cell: Pick<ProfileCellData, "p99Ms" | "meanMs">): number | null {
  return cell.meanMs > 0 ? cell.p99Ms / cell.meanMs : null;
}

export interface ThreadsVerdict {
  batch: number;
  /** The thread count with the lowest mean latency, its latency and speedup over the baseline. */
  bestThreads: number;
  bestMs: number;
  bestSpeedup: number;
  baselineThreads: number;
  /** The largest t whose parallel efficiency is still ≥ `minEfficiency` (null when even the first step is below). */
  efficientUpTo: number | null;
}

/**
 * Where threads stop paying, per batch size: the fastest t, and the last t that keeps parallel efficiency at or
 * above `minEfficiency` (default 50%: beyond it, a core earns less than half its share).
 */
export function threadsVerdicts(
  grid: ProfileGrid,
  cells: readonly ProfileCellData[],
  minEfficiency = 0.5,
): ThreadsVerdict[] {
  const { baselines } = scalingVsThreads(grid, cells);
  const out: ThreadsVerdict[] = [];
  for (const [batch, t0] of baselines) {
    const row = cells
      .filter((c) => c.batch === batch && grid.threads.includes(c.threads))
      .sort((a, b) => a.threads - b.threads);
    const base = row.find((c) => c.threads === t0);
    if (!base || row.length < 2) continue;
    let best = base;
    for (const c of row) if (c.meanMs < best.meanMs) best = c;
    let efficientUpTo: number | null = null;
    for (const c of row) {
      if (c.threads === t0) continue;
      if (((base.meanMs / c.meanMs) * t0) / c.threads >= minEfficiency) efficientUpTo = c.threads;
    }
    out.push({
      batch,
      bestThreads: best.threads,
      bestMs: best.meanMs,
      bestSpeedup: base.meanMs / best.meanMs,
      baselineThreads: t0,
      efficientUpTo,
    });
  }
  return out;
}

/** A chart's data as CSV: the x column, then one column per series named `<key>_<unit>` (b4_ms, t2_samples_per_s). */
export function seriesCsvTable(chart: ChartSeries, xKey: "threads" | "batch", unit: string): CsvTable {
  return {
    columns: [xKey, ...chart.series.map((s) => (unit ? `${s.key}_${unit}` : s.key))],
    rows: chart.rows.map((r) => [r[xKey], ...chart.series.map((s) => r[s.key])]),
  };
}
