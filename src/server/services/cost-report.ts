// The cost report's numbers (issue #21), from stored inputs to what the page shows. Pure: every formula is planning
// core I's (src/core/planning/cost.ts, capacity.ts); this file only picks the inputs (which load test is the
// capacity, which counts are the goodput) and labels what is measured and what is modeled.
import type { LoadgenReportJson } from "@/contracts/agent-jobs";
import { replicasAtRatedCapacity, fleetLoad } from "@/core/planning/capacity";
import {
  breakEvenLoad,
  costPerMillionAtRateUsd,
  costReport,
  HOURS_PER_MONTH,
  monthlyCostUsd,
  type BreakEven,
  type CostReport,
} from "@/core/planning/cost";
import { LatencyHistogram } from "@/core/stats/histogram";
import type { PriceInEffect } from "./price-history";

export interface Slo {
  deadlineMs: number;
  quantile: number;
}

/** A finished load test of a deployment, as stored (report as the agent uploaded it). */
export interface StoredLoadTest {
  id: string;
  modelVersionId: string;
  generationAtStart: number | null;
  generationAtEnd: number | null;
  spec: { mode: string; stepS?: number };
  report: LoadgenReportJson;
  finishedAt: Date | null;
}

export interface MeasuredCapacity {
  /** SLO-meeting completed requests per second of the load test (open runs) or the passing step's rate (searches). */
  ratePerS: number;
  loadTestId: string;
  /** The latency at the SLO percentile, counting failed and dropped requests as missing the deadline. */
  latencyAtSloMs: number;
  finishedAt: Date | null;
}

/**
 * Whether an open run met the SLO: at least q of the *intended* requests finished within the deadline (an error or
 * a client-side drop never meets it). Among the ok ones that needs the latency at percentile q·intended/ok.
 */
export function openRunLatencyAtSlo(
  run: NonNullable<LoadgenReportJson["open"]>,
  slo: Slo,
): { met: boolean; latencyMs: number | null } {
  const ok = run.measured.ok;
  const intended = Math.max(run.measured.intended, ok);
  if (ok <= 0) return { met: false, latencyMs: null };
  const fraction = (slo.quantile * intended) / ok;
  if (fraction > 1) return { met: false, latencyMs: null };
  const latencyMs = LatencyHistogram.decode(run.latency.histogram).percentileMs(fraction * 100);
  return { met: latencyMs <= slo.deadlineMs, latencyMs };
}

/**
 * Capacity: the highest load-tested rate at the running generation (started and ended on it, same model version)
 * with the SLO percentile met. null: not measured.
 */
export function measuredCapacity(
  tests: readonly StoredLoadTest[],
  running: { generation: number; modelVersionId: string },
  slo: Slo | null,
): MeasuredCapacity | null {
  if (!slo) return null;
  let best: MeasuredCapacity | null = null;
  const take = (c: MeasuredCapacity) => {
    if (c.ratePerS > 0 && (!best || c.ratePerS > best.ratePerS)) best = c;
  };
  for (const t of tests) {
    if (t.modelVersionId !== running.modelVersionId || t.generationAtStart !== running.generation) continue;
    if ((t.generationAtEnd ?? t.generationAtStart) !== running.generation) continue;
    if (t.report.open) {
      const verdict = openRunLatencyAtSlo(t.report.open, slo);
      if (verdict.met && verdict.latencyMs !== null)
        take({
          ratePerS: t.report.open.okPerS,
          loadTestId: t.id,
          latencyAtSloMs: verdict.latencyMs,
          finishedAt: t.finishedAt,
        });
    }
    // A search step records its p99 only: it proves an SLO at a quantile of at most 0.99.
    if (t.report.search && slo.quantile <= 0.99) {
      for (const step of t.report.search.steps) {
        if (
          step.passed &&
          step.p99Ms <= slo.deadlineMs &&
          step.intended > 0 &&
          step.ok >= slo.quantile * step.intended
        ) {
          take({ ratePerS: step.rate, loadTestId: t.id, latencyAtSloMs: step.p99Ms, finishedAt: t.finishedAt });
        }
      }
    }
  }
  return best;
}

/** Heartbeat counters summed over a period (metrics rollups). */
export interface UsageCounts {
  /** Seconds the agent reported for (Σ heartbeat intervals): the time the deployment was paid for in the period. */
  windowS: number;
  completed: number;
  rejected: number;
  withinSlo: number;
}

/**
 * The usage that had a price in effect, each minute at its own price (the price history), and the rest: minutes
 * before a class's first known price or after its removal are counted, never priced at a later price.
 */
export interface PricedUsage extends UsageCounts {
  costUsd: number;
  unpricedMinutes: number;
  unpricedS: number;
}

/** Rollups of one deployment summed over one trend bucket and one price epoch: one price (or none) throughout. */
export interface UsagePiece extends UsageCounts {
  start: Date;
  deploymentId: string;
  price: PriceInEffect | null;
  minutes: number;
}

/** What a piece of usage cost at its price (planning core I: hourly × reported time); 0 for an empty one. */
export function pieceCostUsd(p: UsagePiece): number {
  if (!p.price || p.windowS <= 0) return 0;
  return costReport({
    hourlyCostUsd: p.price.hourlyUsd,
    windowS: p.windowS,
    counts: { withinSlo: p.withinSlo, late: Math.max(0, p.completed - p.withinSlo), rejected: p.rejected, fallback: 0 },
  }).windowCostUsd;
}

/** One deployment's period from its pieces: all of its reported usage, and the priced part with its cost. */
export function periodUsage(pieces: readonly UsagePiece[]): { usage: UsageCounts; priced: PricedUsage } {
  const usage: UsageCounts = { windowS: 0, completed: 0, rejected: 0, withinSlo: 0 };
  const priced: PricedUsage = {
    windowS: 0,
    completed: 0,
    rejected: 0,
    withinSlo: 0,
    costUsd: 0,
    unpricedMinutes: 0,
    unpricedS: 0,
  };
  for (const p of pieces) {
    for (const into of p.price ? [usage, priced] : [usage]) {
      into.windowS += p.windowS;
      into.completed += p.completed;
      into.rejected += p.rejected;
      into.withinSlo += p.withinSlo;
    }
    if (p.price) priced.costUsd += pieceCostUsd(p);
    else {
      priced.unpricedMinutes += p.minutes;
      priced.unpricedS += p.windowS;
    }
  }
  return { usage, priced };
}

/** The running configuration and the default ⟨1, T, B⟩ predicted from the same profile (mean batch latency). */
export interface ProfiledComparison {
  profileId: string;
  batchSize: number;
  cores: number;
  runningLabel: string;
  runningLatencyMs: number;
  defaultLatencyMs: number;
}

export interface CostRowInput {
  deploymentId: string;
  modelId: string;
  modelName: string;
  modelVersion: number;
  hostName: string;
  hardwareClass: string;
  generation: number;
  /** Today's price: what the forward-looking figures (capacity cost, monthly, saving, break-even) use. */
  price: { hourlyUsd: number; demo: boolean } | null;
  slo: Slo | null;
  capacity: MeasuredCapacity | null;
  usage: UsageCounts;
  /** The period's usage at the prices in effect then: what the actual cost per 1M uses. */
  priced: PricedUsage;
  /** The highest per-minute arrival rate (completed + rejected) of the last 7 days, from the rollups. */
  measuredPeakPerS: number | null;
  comparison: ProfiledComparison | { missing: string };
}

export interface CostOptions {
  /** Entered peak rates per deployment; absent: the measured 7-day maximum. */
  peakPerS: Record<string, number>;
  headroomMultiplier: number;
  redundancyK: number;
}

export interface CostRow extends CostRowInput {
  goodputPerHour: number | null;
  actual: CostReport | null;
  capacityCostPerMillionUsd: number | null;
  peakPerS: number | null;
  peakSource: "entered" | "measured" | null;
  replicas: null | { base: number; withHeadroom: number; total: number; survivesK: boolean };
  monthlyCostUsd: number | null;
  saving: null | {
    runningThroughputPerS: number;
    defaultThroughputPerS: number;
    latencySavingMs: number;
    latencyRatio: number;
    runningCostPerMillionUsd: number | null;
    defaultCostPerMillionUsd: number | null;
    costSavingPerMillionUsd: number | null;
  };
}

export function costRow(input: CostRowInput, options: CostOptions): CostRow {
  const hourly = input.price?.hourlyUsd ?? null;
  const { windowS, withinSlo } = input.usage;
  const goodputPerHour = windowS > 0 ? (withinSlo * 3600) / windowS : null;
  // What was spent: the priced minutes at their own prices, i.e. their time-weighted mean price over their time.
  const p = input.priced;
  const actual =
    p.windowS > 0
      ? costReport({
          hourlyCostUsd: (p.costUsd * 3600) / p.windowS,
          windowS: p.windowS,
          counts: {
            withinSlo: p.withinSlo,
            late: Math.max(0, p.completed - p.withinSlo),
            rejected: p.rejected,
            fallback: 0,
          },
        })
      : null;
  const capacityCostPerMillionUsd =
    hourly !== null && input.capacity
      ? costPerMillionAtRateUsd({ hourlyCostUsd: hourly, throughputPerS: input.capacity.ratePerS })
      : null;
  const entered = options.peakPerS[input.deploymentId];
  const peakPerS = entered !== undefined ? entered : input.measuredPeakPerS;
  const peakSource = entered !== undefined ? "entered" : input.measuredPeakPerS !== null ? "measured" : null;
  let replicas: CostRow["replicas"] = null;
  if (input.capacity && peakPerS !== null && peakPerS > 0) {
    const rated = replicasAtRatedCapacity({
      peakArrivalRatePerS: peakPerS,
      ratedPerReplicaPerS: input.capacity.ratePerS,
      headroomMultiplier: options.headroomMultiplier,
    });
    const total = rated.provisionedReplicas + options.redundancyK;
    // N+k: with k replicas down, the provisioned count still carries the peak below the measured capacity.
    const survivesK = fleetLoad({
      arrivalRatePerS: peakPerS,
      perReplicaRatePerS: input.capacity.ratePerS,
      replicas: Math.max(1, total - options.redundancyK),
    }).stable;
    replicas = { base: rated.baseReplicas, withHeadroom: rated.provisionedReplicas, total, survivesK };
  }
  const monthly =
    hourly !== null && replicas
      ? monthlyCostUsd({ replicas: replicas.total, hourlyCostUsd: hourly, hoursPerMonth: HOURS_PER_MONTH })
      : null;
  let saving: CostRow["saving"] = null;
  if (!("missing" in input.comparison)) {
    const c = input.comparison;
    const runningThroughputPerS = (1000 * c.batchSize) / c.runningLatencyMs;
    const defaultThroughputPerS = (1000 * c.batchSize) / c.defaultLatencyMs;
    const per = (rate: number) =>
      hourly !== null ? costPerMillionAtRateUsd({ hourlyCostUsd: hourly, throughputPerS: rate }) : null;
    const runningCost = per(runningThroughputPerS);
    const defaultCost = per(defaultThroughputPerS);
    saving = {
      runningThroughputPerS,
      defaultThroughputPerS,
      latencySavingMs: c.defaultLatencyMs - c.runningLatencyMs,
      latencyRatio: c.defaultLatencyMs / c.runningLatencyMs,
      runningCostPerMillionUsd: runningCost,
      defaultCostPerMillionUsd: defaultCost,
      costSavingPerMillionUsd: runningCost !== null && defaultCost !== null ? defaultCost - runningCost : null,
    };
  }
  return {
    ...input,
    goodputPerHour,
    actual,
    capacityCostPerMillionUsd,
    peakPerS,
    peakSource,
    replicas,
    monthlyCostUsd: monthly,
    saving,
  };
}

export interface ModelTotal {
  modelId: string;
  modelName: string;
  deployments: number;
  /** What the priced deployments cost over the period (hourly × reported time, summed). */
  costUsd: number;
  goodput: number;
  rejected: number;
  late: number;
  /** Σ cost / Σ SLO-meeting completions × 10⁶ over its priced deployments; null when none met the SLO. */
  costPerMillionUsd: number | null;
  monthlyCostUsd: number | null;
  unpriced: number;
  /** Reported minutes (and their time) with no price in effect: left out of the cost, not priced at a later price. */
  unpricedMinutes: number;
  unpricedS: number;
}

/** Per model across agents: sums of each deployment's costReport, and the period total. */
export function totals(rows: readonly CostRow[]): {
  models: ModelTotal[];
  all: Omit<ModelTotal, "modelId" | "modelName">;
} {
  const byModel = new Map<string, ModelTotal>();
  const add = (t: Omit<ModelTotal, "modelId" | "modelName" | "costPerMillionUsd">, r: CostRow) => {
    t.deployments += 1;
    t.unpricedMinutes += r.priced.unpricedMinutes;
    t.unpricedS += r.priced.unpricedS;
    if (!r.actual) {
      if (!r.price) t.unpriced += 1;
      return;
    }
    t.costUsd += r.actual.windowCostUsd;
    t.goodput += r.actual.goodput;
    t.rejected += r.actual.rejected;
    t.late += r.actual.late;
    if (r.monthlyCostUsd !== null) t.monthlyCostUsd = (t.monthlyCostUsd ?? 0) + r.monthlyCostUsd;
  };
  const empty = () => ({
    deployments: 0,
    costUsd: 0,
    goodput: 0,
    rejected: 0,
    late: 0,
    monthlyCostUsd: null as number | null,
    unpriced: 0,
    unpricedMinutes: 0,
    unpricedS: 0,
    costPerMillionUsd: null as number | null,
  });
  const all = empty();
  for (const r of rows) {
    const t = byModel.get(r.modelId) ?? { modelId: r.modelId, modelName: r.modelName, ...empty() };
    add(t, r);
    add(all, r);
    byModel.set(r.modelId, t);
  }
  const perMillion = (t: { costUsd: number; goodput: number }) =>
    t.goodput > 0 ? (t.costUsd / t.goodput) * 1e6 : null;
  const models = [...byModel.values()]
    .map((t) => ({ ...t, costPerMillionUsd: perMillion(t) }))
    .sort((a, b) => a.modelName.localeCompare(b.modelName));
  return { models, all: { ...all, costPerMillionUsd: perMillion(all) } };
}

/** Cost per 1M SLO-meeting inferences per bucket, each piece of usage at the price in effect then; unpriced pieces left out. */
export function trendSeries(
  pieces: readonly UsagePiece[],
): Array<{ t: number; costPerMillionUsd: number; goodput: number }> {
  const byStart = new Map<number, { cost: number; goodput: number }>();
  for (const p of pieces) {
    if (!p.price || p.windowS <= 0) continue;
    const acc = byStart.get(p.start.getTime()) ?? { cost: 0, goodput: 0 };
    acc.cost += pieceCostUsd(p);
    acc.goodput += p.withinSlo;
    byStart.set(p.start.getTime(), acc);
  }
  return [...byStart.entries()]
    .filter(([, a]) => a.goodput > 0)
    .sort(([a], [b]) => a - b)
    .map(([t, a]) => ({ t, costPerMillionUsd: (a.cost / a.goodput) * 1e6, goodput: a.goodput }));
}

export interface BreakEvenSide {
  hardwareClass: string;
  hourlyUsd: number;
  capacityPerS: number;
  capacitySource: "measured" | "entered";
}

/** F-68 between two priced hardware classes for one model: the dearer class is the "large" one. */
export function breakEvenBetween(
  a: BreakEvenSide,
  b: BreakEvenSide,
): {
  large: BreakEvenSide;
  small: BreakEvenSide;
  result: BreakEven;
  largeCostPerMillionUsd: number;
  smallCostPerMillionUsd: number;
} {
  const [large, small] = a.hourlyUsd >= b.hourlyUsd ? [a, b] : [b, a];
  const option = (s: BreakEvenSide) => ({
    name: s.hardwareClass,
    hourlyCostUsd: s.hourlyUsd,
    capacityPerS: s.capacityPerS,
  });
  return {
    large,
    small,
    result: breakEvenLoad({ large: option(large), small: option(small) }),
    largeCostPerMillionUsd: costPerMillionAtRateUsd({
      hourlyCostUsd: large.hourlyUsd,
      throughputPerS: large.capacityPerS,
    }),
    smallCostPerMillionUsd: costPerMillionAtRateUsd({
      hourlyCostUsd: small.hourlyUsd,
      throughputPerS: small.capacityPerS,
    }),
  };
}
