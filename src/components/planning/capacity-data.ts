/**
 * Capacity planner (issue 18 item 2; F-12…F-17, Napkin Math 13.3, §13.10.2): utilization–latency curves for M/M/1,
 * M/D/1 and M/M/c, the safe utilization for a p99 budget, and replicas for a peak rate with headroom and N+k under
 * both of the chapter's readings. Pure: the page only renders this.
 */
import { capacityPlan, type CapacityPlan } from "@/core/planning/capacity";
import { CHAPTER_P99_MULTIPLIER, LN_100, md1, mm1, mmc, mmcSojournPercentileMs } from "@/core/planning/queueing";
import { niceCeil } from "@/lib/planning/axis";
import type { CsvTable } from "@/lib/planning/csv";
import { need, validateForm, type FormSpec, type FormValidation, type RawState } from "@/lib/planning/fields";
import { runModel, type ModelRun } from "@/lib/planning/run-model";

export const capacitySpec = {
  rate: { kind: "number", label: "Peak arrival rate", unit: "req/s", default: "5000", min: 0, minInclusive: false },
  service: {
    kind: "number",
    label: "Service time S",
    unit: "ms",
    default: "3.52819",
    min: 0,
    minInclusive: false,
    help: "Mean time one replica holds a request (batch 1).",
  },
  budget: {
    kind: "number",
    label: "p99 budget",
    unit: "ms",
    default: "50",
    min: 0,
    minInclusive: false,
    help: "For queue wait + service; end to end if an outside-worker bound is given.",
  },
  outside: {
    kind: "number",
    label: "Outside-worker upper bound",
    unit: "ms",
    default: "0",
    min: 0,
    help: "Subtracted from the budget first (Napkin Math 13.3 Step 0).",
  },
  multiplier: {
    kind: "choice",
    label: "p99 multiple of the mean",
    default: "chapter",
    options: [
      { value: "chapter", label: "4.6 (the chapter's)" },
      { value: "exact", label: "ln 100 = 4.605" },
    ],
  },
  headroom: { kind: "number", label: "Headroom", unit: "%", default: "30", min: 0, max: 1000 },
  k: {
    kind: "number",
    label: "Failures to survive (N+k)",
    unit: "replicas",
    default: "1",
    min: 0,
    max: 1000,
    integer: true,
  },
  perReplica: {
    kind: "number",
    label: "Per-replica rate (batched plan)",
    unit: "req/s",
    default: "",
    min: 0,
    minInclusive: false,
    optional: true,
    help: "Empty: 1/S, one request at a time. A batched plan enters B/T(B), e.g. 7,040.",
  },
  servers: {
    kind: "number",
    label: "Servers c for the M/M/c curve",
    unit: "servers",
    default: "4",
    min: 1,
    max: 1000,
    integer: true,
  },
} as const satisfies FormSpec;

export type CapacitySpec = typeof capacitySpec;
export type CapacityState = RawState<CapacitySpec>;
export type CapacityField = keyof CapacitySpec & string;
const labelOf = (k: CapacityField) => capacitySpec[k].label;

export interface CapacityPreset {
  id: string;
  label: string;
  source: string;
  state: CapacityState;
}

const NAPKIN: CapacityState = {
  rate: "5000",
  service: "3.52819",
  budget: "50",
  outside: "0",
  multiplier: "chapter",
  headroom: "30",
  k: "1",
  perReplica: "",
  servers: "4",
};

export const CAPACITY_PRESETS: readonly CapacityPreset[] = [
  {
    id: "napkin",
    label: "Napkin Math 13.3",
    source:
      "ResNet-50 on H100s: 5,000 QPS peak, S = 3.528 ms (fixture R), 50 ms p99 for queue + GPU, p99 ≈ 4.6 × mean, 30% headroom, N+1.",
    state: NAPKIN,
  },
  {
    id: "napkin-n2",
    label: "Napkin Math 13.3, N+2",
    source:
      "The same plan surviving two failures: 27 + 2 = 29 at the same threshold, or 36 + 2 = 38 keeping the headroom.",
    state: { ...NAPKIN, k: "2" },
  },
  {
    id: "batched",
    label: "Batched plan (§13.10.2)",
    source: "The same peak on the saturated batched rate 7,040 img/s (B = 32): matches throughput, not p99 latency.",
    state: { ...NAPKIN, perReplica: "7040" },
  },
];

/** Where a deployment runs now, to draw over the model curves when deployments report it. */
export interface LiveOperatingPoint {
  id: string;
  label: string;
  /** Measured λ/μ on one replica. */
  utilization: number;
  meanMs?: number;
  p99Ms?: number;
}

export interface CurvePoint {
  utilization: number;
  mm1MeanMs: number;
  mm1P99Ms: number;
  md1MeanMs: number;
  mmcMeanMs: number;
  mmcP99Ms: number;
}

export interface CurvesView {
  serviceTimeMs: number;
  servers: number;
  multiplier: number;
  points: CurvePoint[];
  /** The budget the curves must stay under: p99 budget − outside-worker bound. */
  modelBudgetMs: number;
  /** ρ_max, when any utilization is safe. */
  maxUtilization: number | null;
  /** A y-axis ceiling that keeps the budget in view; curves beyond it are clipped. */
  yMaxMs: number;
}

export interface ReplicaBar {
  step: string;
  replicas: number;
  /** ρ on the survivors after k failures, where the step is a provisioned fleet. */
  utilizationAfterFailures: number | null;
  withinMaxUtilization: boolean | null;
}

export interface CapacityView {
  validation: FormValidation<CapacitySpec>;
  errors: Partial<Record<CapacityField, string>>;
  plan: ModelRun<CapacityPlan, CapacityField> | null;
  curves: ModelRun<CurvesView, CapacityField> | null;
  replicaBars: ReplicaBar[];
  curvesCsv: CsvTable;
  replicasCsv: CsvTable;
}

export const CURVE_MAX_UTILIZATION = 0.95;
const CURVE_STEPS = 38; // 0 to 0.95 in steps of 0.025

export function multiplierOf(choice: string): number {
  return choice === "exact" ? LN_100 : CHAPTER_P99_MULTIPLIER;
}

export function utilizationCurves(input: { serviceTimeMs: number; servers: number; multiplier: number }): CurvePoint[] {
  const { serviceTimeMs: s, servers: c, multiplier: m } = input;
  return Array.from({ length: CURVE_STEPS + 1 }, (_, i) => {
    const rho = (CURVE_MAX_UTILIZATION * i) / CURVE_STEPS;
    const single = { arrivalRatePerS: (rho * 1000) / s, serviceTimeMs: s };
    const pooled = { arrivalRatePerS: (rho * c * 1000) / s, serviceTimeMs: s, servers: c };
    const mean = mm1(single).meanSojournMs;
    return {
      utilization: rho,
      mm1MeanMs: mean,
      mm1P99Ms: m * mean,
      md1MeanMs: md1(single).meanSojournMs,
      mmcMeanMs: mmc(pooled).meanSojournMs,
      mmcP99Ms: mmcSojournPercentileMs(pooled, 0.99),
    };
  });
}

const PARAMS: Partial<Record<string, CapacityField>> = {
  peakArrivalRatePerS: "rate",
  serviceTimeMs: "service",
  p99BudgetMs: "budget",
  outsideWorkerUpperBoundMs: "outside",
  headroomFraction: "headroom",
  redundancyK: "k",
  perReplicaRatePerS: "perReplica",
  servers: "servers",
};

export function computeCapacity(raw: CapacityState): CapacityView {
  const validation = validateForm(capacitySpec, raw);
  const values = validation.values;
  const errors: Partial<Record<CapacityField, string>> = { ...validation.errors };

  const p = need(values, ["rate", "service", "budget", "outside", "multiplier", "headroom", "k", "perReplica"]);
  let plan: CapacityView["plan"] = null;
  if (p) {
    if (p.outside >= p.budget) {
      errors.outside = `Outside-worker upper bound must be below the p99 budget (${p.budget} ms)`;
    } else {
      plan = runModel(
        () =>
          capacityPlan({
            peakArrivalRatePerS: p.rate,
            serviceTimeMs: p.service,
            p99BudgetMs: p.budget,
            outsideWorkerUpperBoundMs: p.outside,
            p99Multiplier: multiplierOf(p.multiplier),
            headroomFraction: p.headroom / 100,
            redundancyK: p.k,
            ...(p.perReplica !== undefined ? { perReplicaRatePerS: p.perReplica } : {}),
          }),
        PARAMS,
        labelOf,
      );
      if (!plan.ok && plan.field) errors[plan.field] = plan.message;
    }
  }

  const c = need(values, ["service", "servers", "multiplier", "budget", "outside"]);
  let curves: CapacityView["curves"] = null;
  if (c && !errors.outside) {
    curves = runModel(
      () => {
        const multiplier = multiplierOf(c.multiplier);
        const modelBudgetMs = c.budget - c.outside;
        const maxUtilization = plan?.ok && plan.value.feasible ? plan.value.safeUtilization.maxUtilization : null;
        return {
          serviceTimeMs: c.service,
          servers: c.servers,
          multiplier,
          points: utilizationCurves({ serviceTimeMs: c.service, servers: c.servers, multiplier }),
          modelBudgetMs,
          maxUtilization,
          yMaxMs: niceCeil(Math.max(2 * modelBudgetMs, 2 * multiplier * c.service)),
        };
      },
      PARAMS,
      labelOf,
    );
  }

  const replicaBars =
    plan?.ok && plan.value.feasible ? replicaBarsOf(plan.value, values.k ?? 1, values.headroom ?? 0) : [];
  return {
    validation,
    errors,
    plan,
    curves,
    replicaBars,
    curvesCsv: curvesCsv(curves?.ok ? curves.value : null),
    replicasCsv: replicasCsv(replicaBars),
  };
}

export function replicaBarsOf(
  plan: Extract<CapacityPlan, { feasible: true }>,
  k: number,
  headroomPercent: number,
): ReplicaBar[] {
  const r = plan.replicas;
  const fleet = (step: string, f: typeof r.postFailure): ReplicaBar => ({
    step,
    replicas: f.replicas,
    utilizationAfterFailures: f.utilizationAfterFailures,
    withinMaxUtilization: f.withinMaxUtilization,
  });
  return [
    { step: "exact need", replicas: r.exactReplicas, utilizationAfterFailures: null, withinMaxUtilization: null },
    { step: "base", replicas: r.baseReplicas, utilizationAfterFailures: null, withinMaxUtilization: null },
    fleet(`+${headroomPercent}% headroom`, r.postFailure),
    fleet(`N+${k} on base`, r.nPlusKOnBase),
    fleet(`N+${k} on final`, r.nPlusKOnFinal),
  ];
}

export function curvesCsv(curves: CurvesView | null): CsvTable {
  const columns = [
    "utilization",
    "mm1_mean_ms",
    "mm1_p99_ms",
    "md1_mean_ms",
    "mmc_mean_ms",
    "mmc_p99_ms",
    "servers",
    "service_ms",
    "p99_multiplier",
  ];
  if (!curves) return { columns, rows: [] };
  return {
    columns,
    rows: curves.points.map((p) => [
      p.utilization,
      p.mm1MeanMs,
      p.mm1P99Ms,
      p.md1MeanMs,
      p.mmcMeanMs,
      p.mmcP99Ms,
      curves.servers,
      curves.serviceTimeMs,
      curves.multiplier,
    ]),
  };
}

export function replicasCsv(bars: readonly ReplicaBar[]): CsvTable {
  return {
    columns: ["step", "replicas", "utilization_after_failures", "within_max_utilization"],
    rows: bars.map((b) => [b.step, b.replicas, b.utilizationAfterFailures, b.withinMaxUtilization]),
  };
}
