/**
 * When a profile cell has been measured enough (Packrat §3.2 as a product feature). Cells are measured in
 * interleaved rounds (round-plan.ts) under any rule. Decision-aware (the default): a cell stops once its interval
 * cannot change the optimizer's plan for any B by more than 2% of the plan's latency (decision-rule.ts), after at
 * least `minRounds` rounds. Adaptive ("precision"): until the 95% interval half-width is ≤ 2% of the estimate,
 * 10–200 iterations, a 30 s cap per cell. Fixed ("paper"): exactly 10 warm-up + 100 iterations.
 */
import { meanConfidenceInterval } from "../stats/confidence";

/** `roundIterations`: iterations of one cell per round (absent: 10). */
export type StoppingRule =
  | {
      kind: "adaptive";
      warmup: number;
      minIterations: number;
      maxIterations: number;
      relativeHalfWidth: number;
      confidence: number;
      maxCellMs: number;
      roundIterations?: number;
    }
  | { kind: "fixed"; warmup: number; iterations: number; roundIterations?: number }
  | {
      kind: "decision";
      warmup: number;
      roundIterations: number;
      minRounds: number;
      maxIterations: number;
      tolerance: number;
      confidence: number;
      maxCellMs: number;
    };

export const DECISION_STOPPING_RULE: StoppingRule = {
  kind: "decision",
  warmup: 3,
  roundIterations: 3,
  minRounds: 4,
  maxIterations: 30,
  tolerance: 0.02,
  confidence: 0.95,
  maxCellMs: 60_000,
};

export const PRECISION_STOPPING_RULE: StoppingRule = {
  kind: "adaptive",
  warmup: 5,
  minIterations: 10,
  maxIterations: 200,
  relativeHalfWidth: 0.02,
  confidence: 0.95,
  maxCellMs: 30_000,
};

export const DEFAULT_STOPPING_RULE: StoppingRule = DECISION_STOPPING_RULE;

export const PAPER_STOPPING_RULE: StoppingRule = { kind: "fixed", warmup: 10, iterations: 100 };

export const DEFAULT_ROUND_ITERATIONS = 10;

/** The form's presets: decision-aware (default), 2% precision ("adaptive"), the paper's fixed rule. */
export const RULE_PRESET_NAMES = ["decision", "adaptive", "paper"] as const;
export type RulePresetName = (typeof RULE_PRESET_NAMES)[number];

export function ruleForPreset(preset: RulePresetName | undefined): StoppingRule {
  return preset === "paper"
    ? PAPER_STOPPING_RULE
    : preset === "adaptive"
      ? PRECISION_STOPPING_RULE
      : DECISION_STOPPING_RULE;
}

export function roundIterationsOf(rule: StoppingRule): number {
  return rule.roundIterations ?? DEFAULT_ROUND_ITERATIONS;
}

export type StopReason = "converged" | "settled" | "max-iterations" | "time-cap" | "fixed-count";

/**
 * The stop reason of a cell a cancel cut short: its estimate rests on the rounds measured before the cancel (fewer
 * than the rule asks). Cells are measured in interleaved rounds and most finish only near the end, so a cancelled
 * job keeps these rather than nothing.
 */
export const CUT_SHORT_STOP_REASON = "cancelled";
/** A cut-short cell needs at least this many rounds: a mean and an interval. */
export const CUT_SHORT_MIN_ROUNDS = 2;

/** Whether to stop after `samplesMs` (measured iterations, warm-up excluded) taking `elapsedMs` so far. */
export function shouldStop(rule: StoppingRule, samplesMs: readonly number[], elapsedMs: number): StopReason | null {
  const n = samplesMs.length;
  if (rule.kind === "decision") throw new Error("the decision-aware rule judges the whole grid: use round-plan.ts");
  if (rule.kind === "fixed") return n >= rule.iterations ? "fixed-count" : null;
  if (n >= rule.maxIterations) return "max-iterations";
  if (elapsedMs >= rule.maxCellMs && n >= 2) return "time-cap";
  if (n < rule.minIterations) return null;
  const ci = meanConfidenceInterval(samplesMs, rule.confidence);
  return ci.relativeHalfWidth !== null && ci.relativeHalfWidth <= rule.relativeHalfWidth ? "converged" : null;
}

export interface CellStatistics {
  iterations: number;
  meanMs: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  stddevMs: number;
  ciHalfWidthMs: number;
}

/** Exact order statistics (nearest rank) and the CI of the mean, from the measured iterations. */
export function cellStatistics(samplesMs: readonly number[], confidence = 0.95): CellStatistics {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const rank = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const ci = sorted.length >= 2 ? meanConfidenceInterval(samplesMs, confidence) : undefined;
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return {
    iterations: sorted.length,
    meanMs: mean,
    p50Ms: rank(0.5),
    p90Ms: rank(0.9),
    p99Ms: rank(0.99),
    stddevMs: ci?.standardDeviation ?? 0,
    ciHalfWidthMs: ci?.halfWidth ?? 0,
  };
}

/**
 * A duration estimate for a grid from a short probe at (t = 1, b = 1): each cell scales by b / t (work per
 * iteration) × the iterations the rule needs, as a range between the fewest and the most iterations it allows.
 */
export function estimateGridDurationMs(
  probeMsAtT1B1: number,
  threads: readonly number[],
  batches: readonly number[],
  rule: StoppingRule,
): { lowMs: number; highMs: number } {
  const [minIt, maxIt] =
    rule.kind === "fixed"
      ? [rule.iterations, rule.iterations]
      : rule.kind === "decision"
        ? [rule.minRounds * rule.roundIterations, rule.maxIterations]
        : [rule.minIterations, rule.maxIterations];
  let low = 0;
  let high = 0;
  for (const t of threads) {
    for (const b of batches) {
      const perIteration = (probeMsAtT1B1 * b) / t;
      low += perIteration * (rule.warmup + minIt);
      high += Math.min(
        perIteration * (rule.warmup + maxIt),
        rule.kind !== "fixed" ? rule.maxCellMs + perIteration * rule.warmup : Infinity,
      );
    }
  }
  return { lowMs: low, highMs: high };
}
