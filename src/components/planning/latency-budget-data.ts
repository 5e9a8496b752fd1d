/**
 * Latency budget planner (issue 18 item 1; F-02, F-03, F-12, Table 3, Checkpoint 13.1): the form, the chapter's
 * presets, and everything the page draws, computed from the form's text. Pure: the page only renders this.
 *
 * Every stage has a p50 and a p99 allowance. In planner mode all are entered; a deployment source (heartbeat
 * histograms, when deployments report them) can supply the stages the agent measures, and the queue stage can be
 * modeled as M/M/1 at an arrival rate instead of entered.
 */
import {
  amdahlOnKinds,
  latencyBudget,
  queueingDividend,
  workerAllowance,
  type LatencyBudget,
  type StageKind,
  STAGE_KINDS,
} from "@/core/planning/latency-budget";
import { mmcWaitPercentileMs, queueingUtilization } from "@/core/planning/queueing";
import type { CsvTable } from "@/lib/planning/csv";
import {
  need,
  validateForm,
  type FormSpec,
  type FormValidation,
  type FormValues,
  type NumberFieldSpec,
  type RawState,
} from "@/lib/planning/fields";
import { runModel, type ModelRun } from "@/lib/planning/run-model";

export interface StageInfo {
  kind: StageKind;
  label: string;
  /** The agent times this stage (deserialize through serialize); the rest are always entered. */
  agentMeasured: boolean;
  color: string;
}

export const STAGES: readonly StageInfo[] = [
  { kind: "network", label: "Network", agentMeasured: false, color: "#8c6bb1" },
  { kind: "deserialize", label: "Deserialize", agentMeasured: true, color: "#41b6c4" },
  { kind: "preprocess", label: "Preprocess", agentMeasured: true, color: "#f4a259" },
  { kind: "transfer", label: "Host→device copy", agentMeasured: false, color: "#bc8a5f" },
  { kind: "queue", label: "Queue", agentMeasured: true, color: "#d64545" },
  { kind: "batchFormation", label: "Batch formation", agentMeasured: true, color: "#f28e8e" },
  { kind: "inference", label: "Inference", agentMeasured: true, color: "#2f6fed" },
  { kind: "postprocess", label: "Postprocess", agentMeasured: true, color: "#1f9d55" },
  { kind: "serialize", label: "Serialize", agentMeasured: true, color: "#7f8c9d" },
];
if (STAGES.length !== STAGE_KINDS.length) throw new Error("every stage kind needs a row");

/** Stages outside the worker: their p99s are the upper bound Checkpoint 13.1 subtracts from the deadline. */
export const OUTSIDE_WORKER: readonly StageKind[] = [
  "network",
  "deserialize",
  "preprocess",
  "transfer",
  "postprocess",
  "serialize",
];

/** Table 3's ResNet-50 request (p50 = p99: the chapter gives one unloaded time per stage): the page's default. */
const RESNET50_STAGES: Partial<Record<StageKind, [number, number]>> = {
  preprocess: [4.5, 4.5],
  transfer: [0.5, 0.5],
  inference: [3.5, 3.5],
  postprocess: [0.1, 0.1],
};

const stageField = (label: string, q: string, ms: number): NumberFieldSpec => ({
  kind: "number",
  label: `${label} ${q}`,
  unit: "ms",
  default: String(ms),
  min: 0,
});

function stageFields() {
  const out: Record<string, NumberFieldSpec> = {};
  for (const s of STAGES) {
    const [p50, p99] = RESNET50_STAGES[s.kind] ?? [0, 0];
    out[`${s.kind}P50`] = stageField(s.label, "p50", p50);
    out[`${s.kind}P99`] = stageField(s.label, "p99", p99);
  }
  return out as Record<`${StageKind}P50` | `${StageKind}P99`, NumberFieldSpec>;
}

export const SPEEDUP_TARGETS = STAGES.map((s) => ({ value: s.kind, label: s.label }));

export const latencyBudgetSpec = {
  deadline: { kind: "number", label: "p99 deadline", unit: "ms", default: "50", min: 0, minInclusive: false },
  ...stageFields(),
  queueMode: {
    kind: "choice",
    label: "Queue stage",
    default: "model",
    options: [
      { value: "entered", label: "entered" },
      { value: "model", label: "modeled: M/M/1 wait" },
    ],
  },
  rate: {
    kind: "number",
    label: "Arrival rate per replica",
    unit: "req/s",
    default: "140",
    min: 0,
    help: "Used by the queue model and the queueing dividend; service time S = the inference p50.",
  },
  speedStage: { kind: "choice", label: "Stage to speed up", default: "inference", options: SPEEDUP_TARGETS },
  speedup: {
    kind: "number",
    label: "Speed-up factor k",
    unit: "×",
    default: "10",
    min: 0,
    minInclusive: false,
    max: 1e6,
  },
} as const satisfies FormSpec;

export type LatencyBudgetSpec = typeof latencyBudgetSpec;
export type LatencyBudgetState = RawState<LatencyBudgetSpec>;
export type LatencyBudgetField = keyof LatencyBudgetSpec & string;
const labelOf = (k: LatencyBudgetField) => latencyBudgetSpec[k].label;

export interface LatencyPreset {
  id: string;
  label: string;
  source: string;
  state: LatencyBudgetState;
}

function presetState(
  deadline: number,
  stages: Partial<Record<StageKind, [number, number]>>,
  rest: Partial<LatencyBudgetState> = {},
): LatencyBudgetState {
  const state = {
    deadline: String(deadline),
    queueMode: "entered",
    rate: "140",
    speedStage: "inference",
    speedup: "10",
  } as Record<string, string>;
  for (const s of STAGES) {
    const [p50, p99] = stages[s.kind] ?? [0, 0];
    state[`${s.kind}P50`] = String(p50);
    state[`${s.kind}P99`] = String(p99);
  }
  return { ...(state as LatencyBudgetState), ...rest };
}

/**
 * The chapter gives one time per stage (an unloaded request), so p50 = p99 for those; the queue stage is the
 * M/M/1 model at 140 req/s per replica (≈ Napkin Math 13.3's 5,000 QPS over 36 replicas), ρ = 140 × 3.5 ms = 0.49.
 */
export const LATENCY_PRESETS: readonly LatencyPreset[] = [
  {
    id: "resnet50",
    label: "ResNet-50 (Table 3)",
    source:
      "Example 13.2 / Table 3: JPEG decode 3 + resize 1 + normalize 0.5 ms (preprocess 4.5), copy 0.5, forward pass 3.5, softmax + top-5 0.1 ms; 50 ms p99 SLO. Queue: M/M/1 at 140 req/s per replica (Napkin Math 13.3's 5,000 QPS over 36 replicas).",
    state: presetState(50, RESNET50_STAGES, { queueMode: "model", rate: "140" }),
  },
  {
    id: "dlrm",
    label: "DLRM (Table 4)",
    source:
      "Lighthouse 13.1 / Table 4: parsing 0.5, embedding lookup 6 + MLP 1.5 (inference 7.5), ranking and filtering 1 ms; 10 ms p99 budget.",
    state: presetState(10, { deserialize: [0.5, 0.5], inference: [7.5, 7.5], postprocess: [1, 1] }, { speedup: "2" }),
  },
  {
    id: "selfcheck",
    label: "Serial path (Self-check 13.3)",
    source:
      "Self-check 13.3 Q1: network 8, CPU decode + normalize 10, GPU 8, postprocessing 2 ms; 30 ms SLA; GPU 2× faster.",
    state: presetState(
      30,
      { network: [8, 8], preprocess: [10, 10], inference: [8, 8], postprocess: [2, 2] },
      { speedup: "2" },
    ),
  },
];

/** Stage times a deployment measured (from its heartbeats' histograms), to plug in when deployments report them. */
export interface MeasuredStageSource {
  id: string;
  label: string;
  /** Only stages the agent measures are used; others stay entered. */
  stages: Partial<Record<StageKind, { p50Ms: number; p99Ms: number }>>;
}

export type StageSource = "entered" | "model" | "measured";

export interface StageRow {
  kind: StageKind;
  label: string;
  color: string;
  source: StageSource;
  p50Ms: number;
  p99Ms: number;
  p50SharePercent: number;
  p99SharePercent: number;
}

export interface QueueModelView {
  utilization: number;
  serviceTimeMs: number;
  p50Ms: number;
  p99Ms: number;
}

export interface BudgetView {
  deadlineMs: number;
  p50: LatencyBudget;
  p99: LatencyBudget;
  rows: StageRow[];
  queueModel: QueueModelView | null;
  /** Checkpoint 13.1: deadline − (p99 upper bound of the stages outside the worker). */
  outsideWorkerUpperBoundMs: number;
  workerAllowanceMs: number;
  workerAllowanceFeasible: boolean;
}

export interface AmdahlView {
  stage: StageKind;
  stageLabel: string;
  factor: number;
  beforeMs: number;
  afterMs: number;
  speedup: number;
  latencyReduction: number;
  ceilingSpeedup: number | null;
}

export interface DividendView {
  arrivalRatePerS: number;
  serviceTimeMs: number;
  newServiceTimeMs: number;
  utilizationBefore: number;
  utilizationAfter: number;
  meanBeforeMs: number;
  meanAfterMs: number;
  modelSpeedup: number;
  systemSpeedup: number;
}

export interface ChartBar {
  /** "p50" or "p99" */
  percentile: string;
  [stage: string]: number | string;
}

export interface LatencyBudgetView {
  validation: FormValidation<LatencyBudgetSpec>;
  /** Per-field messages, from validation and from the models' refusals. */
  errors: Partial<Record<LatencyBudgetField, string>>;
  budget: ModelRun<BudgetView, LatencyBudgetField> | null;
  amdahl: ModelRun<AmdahlView, LatencyBudgetField> | null;
  dividend: ModelRun<DividendView, LatencyBudgetField> | { ok: false; message: string; notApplicable: true } | null;
  chart: ChartBar[];
  csv: CsvTable;
}

type Values = Partial<FormValues<LatencyBudgetSpec>>;

function queueModel(values: Values): ModelRun<QueueModelView, LatencyBudgetField> | null {
  const v = need(values, ["rate", "inferenceP50"]);
  if (!v) return null;
  return runModel(
    () => {
      if (!(v.inferenceP50 > 0)) {
        throw new RangeError("The queue model needs the inference p50 (its service time S) to be > 0 ms");
      }
      const input = { arrivalRatePerS: v.rate, serviceTimeMs: v.inferenceP50, servers: 1 };
      return {
        utilization: queueingUtilization(input),
        serviceTimeMs: v.inferenceP50,
        p50Ms: mmcWaitPercentileMs(input, 0.5),
        p99Ms: mmcWaitPercentileMs(input, 0.99),
      };
    },
    { arrivalRatePerS: "rate", serviceTimeMs: "inferenceP50" },
    labelOf,
  );
}

function crossFieldErrors(values: Values): Partial<Record<LatencyBudgetField, string>> {
  const errors: Partial<Record<LatencyBudgetField, string>> = {};
  for (const s of STAGES) {
    const p50 = values[`${s.kind}P50`];
    const p99 = values[`${s.kind}P99`];
    if (p50 !== undefined && p99 !== undefined && p99 < p50) {
      errors[`${s.kind}P99`] = `${s.label} p99 must be ≥ its p50 (${p50} ms)`;
    }
  }
  return errors;
}

export function computeLatencyBudget(
  raw: LatencyBudgetState,
  measured?: MeasuredStageSource | null,
): LatencyBudgetView {
  const validation = validateForm(latencyBudgetSpec, raw);
  const values = validation.values;
  const errors: Partial<Record<LatencyBudgetField, string>> = { ...validation.errors, ...crossFieldErrors(values) };

  const useModel = values.queueMode === "model" && !measured?.stages.queue;
  const queue = useModel ? queueModel(values) : null;
  if (queue && !queue.ok && queue.field) errors[queue.field] = queue.message;

  let budget: LatencyBudgetView["budget"] = null;
  const stageInputs: { info: StageInfo; source: StageSource; p50: number; p99: number }[] = [];
  let stagesComplete = true;
  for (const info of STAGES) {
    const m = info.agentMeasured ? measured?.stages[info.kind] : undefined;
    if (m) {
      stageInputs.push({ info, source: "measured", p50: m.p50Ms, p99: m.p99Ms });
    } else if (info.kind === "queue" && useModel) {
      if (queue?.ok) stageInputs.push({ info, source: "model", p50: queue.value.p50Ms, p99: queue.value.p99Ms });
      else stagesComplete = false;
    } else {
      const p50 = values[`${info.kind}P50`];
      const p99 = values[`${info.kind}P99`];
      if (p50 === undefined || p99 === undefined || errors[`${info.kind}P99`]) stagesComplete = false;
      else stageInputs.push({ info, source: "entered", p50, p99 });
    }
  }

  if (stagesComplete && values.deadline !== undefined) {
    const deadline = values.deadline;
    budget = runModel<BudgetView, LatencyBudgetField>(
      () => {
        const stagesAt = (q: "p50" | "p99") =>
          stageInputs.map((s) => ({ name: s.info.label, kind: s.info.kind, durationMs: q === "p50" ? s.p50 : s.p99 }));
        const p50 = latencyBudget({ slo: { deadlineMs: deadline, quantile: 0.5 }, stages: stagesAt("p50") });
        const p99 = latencyBudget({ slo: { deadlineMs: deadline, quantile: 0.99 }, stages: stagesAt("p99") });
        const outside = stageInputs
          .filter((s) => OUTSIDE_WORKER.includes(s.info.kind))
          .reduce((sum, s) => sum + s.p99, 0);
        const allowance = workerAllowance({
          slo: { deadlineMs: deadline, quantile: 0.99 },
          outsideWorkerUpperBoundMs: outside,
        });
        const rows = stageInputs.map((s, i) => ({
          kind: s.info.kind,
          label: s.info.label,
          color: s.info.color,
          source: s.source,
          p50Ms: s.p50,
          p99Ms: s.p99,
          p50SharePercent: p50.stages[i]!.sharePercent,
          p99SharePercent: p99.stages[i]!.sharePercent,
        }));
        return {
          deadlineMs: deadline,
          p50,
          p99,
          rows,
          queueModel: queue?.ok ? queue.value : null,
          outsideWorkerUpperBoundMs: outside,
          workerAllowanceMs: allowance.workerAllowanceMs,
          workerAllowanceFeasible: allowance.feasible,
        };
      },
      {},
      labelOf,
    );
  } else if (queue && !queue.ok) {
    budget = queue;
  }

  let amdahl: LatencyBudgetView["amdahl"] = null;
  const speed = need(values, ["speedStage", "speedup"]);
  if (budget?.ok && speed) {
    const b = budget.value;
    amdahl = runModel<AmdahlView, LatencyBudgetField>(
      () => {
        const r = amdahlOnKinds(b.p50, [speed.speedStage], speed.speedup);
        const info = STAGES.find((s) => s.kind === speed.speedStage)!;
        return { stage: speed.speedStage, stageLabel: info.label, factor: speed.speedup, ...r };
      },
      { speedupFactor: "speedup" },
      labelOf,
    );
  }

  let dividend: LatencyBudgetView["dividend"] = null;
  const div = need(values, ["rate", "inferenceP50", "speedStage", "speedup"]);
  if (div && div.speedStage !== "inference") {
    dividend = {
      ok: false,
      notApplicable: true,
      message: "The queueing dividend applies when the queued stage (inference) gets faster.",
    };
  } else if (div) {
    dividend = runModel<DividendView, LatencyBudgetField>(
      () => {
        if (!(div.inferenceP50 > 0)) throw new RangeError("The queueing dividend needs an inference p50 > 0 ms");
        if (!(div.rate > 0)) throw new RangeError("The queueing dividend needs an arrival rate > 0 req/s");
        const newS = div.inferenceP50 / div.speedup;
        const d = queueingDividend({
          arrivalRatePerS: div.rate,
          serviceTimeMs: div.inferenceP50,
          newServiceTimeMs: newS,
        });
        return {
          arrivalRatePerS: div.rate,
          serviceTimeMs: div.inferenceP50,
          newServiceTimeMs: newS,
          utilizationBefore: d.before.utilization,
          utilizationAfter: d.after.utilization,
          meanBeforeMs: d.before.meanSojournMs,
          meanAfterMs: d.after.meanSojournMs,
          modelSpeedup: d.modelSpeedup,
          systemSpeedup: d.systemSpeedup,
        };
      },
      { arrivalRatePerS: "rate" },
      labelOf,
    );
  }

  const chart = budget?.ok ? chartBars(budget.value) : [];
  return { validation, errors, budget, amdahl, dividend, chart, csv: budgetCsv(budget?.ok ? budget.value : null) };
}

export function chartBars(b: BudgetView): ChartBar[] {
  const bar = (percentile: "p50" | "p99"): ChartBar => {
    const out: ChartBar = { percentile };
    for (const r of b.rows) out[r.kind] = percentile === "p50" ? r.p50Ms : r.p99Ms;
    return out;
  };
  return [bar("p50"), bar("p99")];
}

export function budgetCsv(b: BudgetView | null): CsvTable {
  const columns = ["percentile", "stage", "source", "duration_ms", "share_percent", "deadline_ms", "remaining_ms"];
  if (!b) return { columns, rows: [] };
  const rows = (["p50", "p99"] as const).flatMap((q) => {
    const budget = q === "p50" ? b.p50 : b.p99;
    return b.rows.map((r) => [
      q,
      r.label,
      r.source,
      q === "p50" ? r.p50Ms : r.p99Ms,
      q === "p50" ? r.p50SharePercent : r.p99SharePercent,
      b.deadlineMs,
      budget.remainingMs,
    ]);
  });
  return { columns, rows };
}
