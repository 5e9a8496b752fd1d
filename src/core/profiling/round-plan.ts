/**
 * Interleaved measurement: a grid's cells are measured in rounds, each cell still in need a few iterations per
 * round, in a shuffled order, so slow drift and bursts of other load fall on every cell alike instead of on the
 * cells that happened to run then. Between rounds the stopping rule decides which cells still need measuring;
 * a cell's latency is the robust estimate of its round means (robust-estimate.ts).
 * Sequential (`interleave: false`): one cell at a time until it stops, as before; kept for comparisons.
 */
import { Prng } from "../stats/prng";
import { settledCells, type CellInterval } from "./decision-rule";
import { robustEstimate, type RobustEstimate } from "./robust-estimate";
import { roundIterationsOf, type StopReason, type StoppingRule } from "./stopping-rule";

export interface CellProgress {
  readonly threads: number;
  readonly batch: number;
  /** One mean per round (or per block of a sequentially measured cell). */
  readonly roundMeansMs: readonly number[];
  readonly iterations: number;
  /** Time spent measuring this cell so far (warm-up included). */
  readonly elapsedMs: number;
}

export interface RoundTask {
  readonly threads: number;
  readonly batch: number;
  /** Warm-up iterations first (only in a cell's first round). */
  readonly warmup: number;
  readonly iterations: number;
}

export interface RoundContext {
  /** T for the decision-aware rule (default: the largest thread count of the grid). */
  readonly cores?: number;
  /** The largest B the decision-aware rule checks (default: the largest batch of the grid). */
  readonly maxBatch?: number;
  readonly interleave?: boolean;
}

export interface RoundDecision {
  /** Tasks of the next round, grouped by thread count (groups and the cells in each shuffled); empty: done. */
  readonly groups: ReadonlyArray<{ threads: number; tasks: RoundTask[] }>;
  /** Why each finished cell stopped, by "t×b"; absent while it still needs measuring. */
  readonly stopped: ReadonlyMap<string, StopReason>;
}

export const cellKey = (threads: number, batch: number) => `${threads}x${batch}`;

export function estimateOf(cell: CellProgress, rule: StoppingRule): RobustEstimate {
  return robustEstimate(cell.roundMeansMs, rule.kind === "fixed" ? 0.95 : rule.confidence);
}

/** Why a cell stops by itself (a count, a cap, its own precision); null while it needs more or the grid-wide test. */
export function cellStopReason(rule: StoppingRule, cell: CellProgress): StopReason | null {
  const s = ownStop(rule, cell);
  return s === "needs-decision" ? null : s;
}

function ownStop(rule: StoppingRule, cell: CellProgress): StopReason | null | "needs-decision" {
  const n = cell.iterations;
  if (rule.kind === "fixed") return n >= rule.iterations ? "fixed-count" : null;
  if (n >= rule.maxIterations) return "max-iterations";
  if (cell.elapsedMs >= rule.maxCellMs && cell.roundMeansMs.length >= 2) return "time-cap";
  if (rule.kind === "adaptive") {
    if (n < rule.minIterations || cell.roundMeansMs.length < 2) return null;
    const e = estimateOf(cell, rule);
    return e.halfWidthMs <= rule.relativeHalfWidth * e.estimateMs ? "converged" : null;
  }
  return cell.roundMeansMs.length < rule.minRounds ? null : "needs-decision";
}

function iterationsFor(rule: StoppingRule, cell: CellProgress): number {
  const per = roundIterationsOf(rule);
  if (rule.kind === "fixed") return Math.min(per, rule.iterations - cell.iterations);
  return Math.max(1, Math.min(per, rule.maxIterations - cell.iterations));
}

/** The next round for `cells` (every cell of the grid, measured or not) under `rule`. */
export function planRound(
  rule: StoppingRule,
  cells: readonly CellProgress[],
  seed: number,
  context: RoundContext = {},
): RoundDecision {
  const stopped = new Map<string, StopReason>();
  const own = cells.map((c) => ownStop(rule, c));
  if (rule.kind === "decision" && own.some((s) => s === "needs-decision")) {
    // The grid-wide test needs an interval for every cell: unmeasured or single-round cells have none (unbounded).
    const intervals: CellInterval[] = cells.map((c) => {
      if (c.roundMeansMs.length === 0)
        return { threads: c.threads, batch: c.batch, estimateMs: 1, lowerMs: -Infinity, upperMs: Infinity };
      const e = estimateOf(c, rule);
      return { threads: c.threads, batch: c.batch, estimateMs: e.estimateMs, lowerMs: e.lowerMs, upperMs: e.upperMs };
    });
    const allBounded = intervals.every((c) => Number.isFinite(c.upperMs));
    const settled = allBounded
      ? settledCells(intervals, {
          cores: context.cores ?? Math.max(...cells.map((c) => c.threads)),
          maxBatch: context.maxBatch ?? Math.max(...cells.map((c) => c.batch)),
          tolerance: rule.tolerance,
        })
      : cells.map(() => false);
    own.forEach((s, i) => {
      if (s === "needs-decision" && settled[i]) own[i] = "settled";
    });
  }
  const todo: CellProgress[] = [];
  cells.forEach((c, i) => {
    const s = own[i];
    if (s === null || s === "needs-decision") todo.push(c);
    else stopped.set(cellKey(c.threads, c.batch), s as StopReason);
  });
  const chosen = context.interleave === false ? todo.slice(0, 1) : todo;
  const random = new Prng(seed >>> 0);
  const byThreads = new Map<number, RoundTask[]>();
  for (const c of chosen) {
    const list = byThreads.get(c.threads) ?? [];
    list.push({
      threads: c.threads,
      batch: c.batch,
      warmup: c.iterations === 0 ? rule.warmup : 0,
      iterations: iterationsFor(rule, c),
    });
    byThreads.set(c.threads, list);
  }
  const groups = shuffle(
    [...byThreads.entries()].map(([threads, tasks]) => ({ threads, tasks: shuffle(tasks, random) })),
    random,
  );
  return { groups, stopped };
}

function shuffle<T>(items: T[], random: Prng): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
