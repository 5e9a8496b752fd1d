/**
 * Batching planner (issue 20; F-23…F-38, Figure 6, Table 8, Table 10, §13.5.4 frontier): the service-time model
 * (typed T(B) = F + s·B, a fit to profiled points, or later a model's stored profile), the throughput–latency knee,
 * the Pareto frontier over (window, max batch) candidates at an arrival rate, and the validator for one candidate.
 * Pure: the page only renders this.
 */
import { validateBatchingCandidate, type BatchingValidation } from "@/core/batching/config-validator";
import { kneeBatch, unpipelinedLatencyMs, unpipelinedThroughputPerS } from "@/core/batching/knee";
import { evaluateCandidate, paretoFrontier, bestUnderLatencyLimit, type EvaluatedCandidate } from "@/core/batching/pareto-frontier";
import { affineServiceTime, batchThroughputPerS, serviceTimeMs, type ServiceTimeModel } from "@/core/batching/service-time";
import { fitServiceTime, type ProfilePoint, type ServiceTimeFit } from "@/core/batching/service-time-fit";
import { tailEnvelope } from "@/core/batching/latency-screens";
import { deratedCapacityPerS } from "@/core/batching/stability";
import { maxWindowMs } from "@/core/batching/window-rule";
import { requestSeenBatch } from "@/core/batching/window-arrivals";
import type { CsvTable } from "@/lib/planning/csv";
import { need, validateForm, type FormSpec, type FormValidation, type FormValues, type RawState } from "@/lib/planning/fields";
import { runModel, type ModelRun } from "@/lib/planning/run-model";
import { niceTicks } from "@/lib/planning/axis";

export const batchingSpec = {
  source: {
    kind: "choice",
    label: "Service-time source",
    default: "typed",
    options: [
      { value: "typed", label: "typed T(B) = F + s·B" },
      { value: "points", label: "fit to profiled points" },
      { value: "profile", label: "a model's profile" },
    ],
  },
  fixedMs: { kind: "number", label: "Fixed part F", unit: "ms", default: "3.49528", min: 0 },
  perSampleMs: { kind: "number", label: "Per-sample part s", unit: "ms", default: "0.032894737", min: 0 },
  points: {
    kind: "pairs",
    label: "Profiled points",
    unit: "ms",
    names: ["batch", "ms"],
    default: "1:3.53, 4:3.63, 8:3.76, 16:4.02, 32:4.55",
    minItems: 2,
    maxItems: 64,
    help: "batch:latency pairs, e.g. 1:3.53, 4:3.63",
  },
  profile: { kind: "choice", label: "Profile", default: "", options: [{ value: "", label: "none" }] },
  threads: { kind: "number", label: "Threads t", unit: "threads", default: "1", min: 1, max: 1024, integer: true },
  kneeWindow: { kind: "number", label: "Window for the knee chart", unit: "ms", default: "10", min: 0, max: 1e5 },
  rate: { kind: "number", label: "Arrival rate λ", unit: "req/s", default: "500", min: 0, max: 1e9 },
  slo: { kind: "number", label: "Latency SLO", unit: "ms", default: "50", min: 0, minInclusive: false, max: 1e6 },
  windows: { kind: "list", label: "Candidate windows", unit: "ms", default: "0, 2, 5, 10, 12, 15, 20, 50", min: 0, minItems: 1, maxItems: 24 },
  batches: { kind: "list", label: "Candidate max batches", unit: "", default: "1, 2, 4, 8, 16, 32, 64, 128", min: 1, integer: true, minItems: 1, maxItems: 24 },
  frontierBatch: {
    kind: "choice",
    label: "Batch size in the envelope",
    default: "full",
    options: [
      { value: "full", label: "full: T_w + T(B_max)" },
      { value: "seen", label: "request-seen p99 at λ" },
    ],
  },
  limit: { kind: "number", label: "Latency limit (p99 envelope)", unit: "ms", default: "", min: 0, minInclusive: false, optional: true },
  cWindow: { kind: "number", label: "Window T_w", unit: "ms", default: "12", min: 0, max: 1e5 },
  cBatch: { kind: "number", label: "Max batch B_max", unit: "", default: "32", min: 1, max: 1e6, integer: true },
  memCap: { kind: "number", label: "Memory cap on batch", unit: "", default: "32", min: 1, max: 1e6, integer: true, optional: true },
  fraction: { kind: "number", label: "Window share of the SLO", unit: "", default: "0.3", min: 0, minInclusive: false, max: 1, maxInclusive: false },
} as const satisfies FormSpec;

export type BatchingSpec = typeof batchingSpec;
export type BatchingState = RawState<BatchingSpec>;
export type BatchingField = keyof BatchingSpec & string;
const labelOf = (k: BatchingField) => batchingSpec[k].label;
type Values = Partial<FormValues<BatchingSpec>>;

export interface BatchingPreset {
  id: string;
  label: string;
  source: string;
  state: BatchingState;
}

const TABLE10: BatchingState = {
  source: "typed",
  fixedMs: "3.49528",
  perSampleMs: "0.032894737",
  points: "1:3.53, 4:3.63, 8:3.76, 16:4.02, 32:4.55",
  profile: "",
  threads: "1",
  kneeWindow: "10",
  rate: "500",
  slo: "50",
  windows: "0, 2, 5, 10, 12, 15, 20, 50",
  batches: "1, 2, 4, 8, 16, 32, 64, 128",
  frontierBatch: "full",
  limit: "",
  cWindow: "12",
  cBatch: "32",
  memCap: "32",
  fraction: "0.3",
};

export const BATCHING_PRESETS: readonly BatchingPreset[] = [
  {
    id: "table10",
    label: "Table 10: ResNet-50, 500 QPS, 50 ms SLO",
    source: "Fixture R (digest §0.3): F = 3.49528 ms, s = 1/30,400 s; 500 QPS; 50 ms SLO; 30% of it for the window; candidate T_w = 12 ms, B_max = 32 (memory-limited).",
    state: TABLE10,
  },
  {
    id: "stated",
    label: "Chapter-stated T(B) = 3.50 + 0.033·B",
    source: "§13.5.4 as written (fixture A): T(B) = 3.50 ms + 0.033 ms · B; the Table 10 scenario.",
    state: { ...TABLE10, fixedMs: "3.5", perSampleMs: "0.033" },
  },
  {
    id: "table8-fit",
    label: "Fit to Table 8",
    source: "Table 8's displayed T(B): 3.53, 3.63, 3.76, 4.02, 4.55 ms at B = 1, 4, 8, 16, 32, fitted by least squares.",
    state: { ...TABLE10, source: "points" },
  },
];

/** A model's stored profile at one thread count, to plug in when profiles are served to the page. */
export interface ProfileCurveOption {
  /** Profile id (the value of the "profile" field). */
  id: string;
  label: string;
  /** Mean latency per batch size, per thread count t. */
  curves: { threads: number; points: ProfilePoint[] }[];
}

/** A load-tested (window, max batch) configuration, drawn over the model when load tests exist. */
export interface MeasuredBatchingPoint {
  windowMs: number;
  maxBatch: number;
  throughputPerS: number;
  p99Ms: number;
  /** The rate the load test offered (its throughput can be no more). */
  offeredPerS?: number;
}

/**
 * The model's point for one (window, max batch) on the frontier's axes, as the frontier computes it: the p99
 * envelope (full batches, or the request-seen p99 batch at λ) and the saturated throughput B_max/T(B_max).
 */
export function modelPointFor(model: ServiceTimeModel, candidate: { windowMs: number; maxBatch: number }, rate: number, mode: string): { envelopeMs: number; throughputPerS: number } {
  const e = mode === "seen" ? evaluateCandidate(model, candidate, { arrivalRatePerS: rate }) : evaluateCandidate(model, candidate);
  return { envelopeMs: e.envelopeMs, throughputPerS: e.throughputPerS };
}

export interface ServiceModelView {
  model: ServiceTimeModel;
  /** Human-readable T(B). */
  formula: string;
  /** Present when the model was fitted to points. */
  fit: ServiceTimeFit | null;
  /** The fitted line over the points' range, for the chart. */
  fitLine: { batch: number; predictedMs: number }[];
}

export interface KneeRow {
  batch: number;
  unpipelinedThroughputPerS: number;
  pipelinedThroughputPerS: number;
  latencyMs: number;
}

export interface KneeView {
  windowMs: number;
  kneeBatch: number | null;
  /** Latency and throughput at the knee, when there is one. */
  kneeLatencyMs: number | null;
  kneeThroughputPerS: number | null;
  rows: KneeRow[];
}

export interface FrontierPoint extends EvaluatedCandidate {
  onFrontier: boolean;
}

export interface ParetoView {
  arrivalRatePerS: number;
  batchMode: "full" | "seen";
  stable: FrontierPoint[];
  frontier: FrontierPoint[];
  dominated: FrontierPoint[];
  unstable: EvaluatedCandidate[];
  limitMs: number | null;
  best: EvaluatedCandidate | null;
}

export interface Table10Card {
  batchingBudgetMs: number;
  maxWindowMs: number;
  poissonMean: number;
  expectedSeenBatch: number;
  p99SeenBatch: number;
  envelopeMs: number;
  capacityPerS: number;
  deratedCapacityPerS: number;
  offeredPerS: number;
}

export interface ValidatorView {
  validation: BatchingValidation;
  card: Table10Card;
}

export interface BatchingView {
  validation: FormValidation<BatchingSpec>;
  errors: Partial<Record<BatchingField, string>>;
  service: ModelRun<ServiceModelView, BatchingField> | null;
  knee: ModelRun<KneeView, BatchingField> | null;
  pareto: ModelRun<ParetoView, BatchingField> | null;
  validator: ModelRun<ValidatorView, BatchingField> | null;
  kneeCsv: CsvTable;
  paretoCsv: CsvTable;
  fitCsv: CsvTable;
}

const PARAMS: Partial<Record<string, BatchingField>> = {
  fixedMs: "fixedMs",
  perSampleMs: "perSampleMs",
  points: "points",
  arrivalRatePerS: "rate",
  windowMs: "cWindow",
  maxBatch: "cBatch",
  sloMs: "slo",
  meanBudgetMs: "slo",
  tailBudgetMs: "slo",
  fraction: "fraction",
  latencyLimitMs: "limit",
};

const fmt = (x: number) => Number(x.toPrecision(6)).toString();

export function formulaOf(model: ServiceTimeModel): string {
  if (model.kind === "affine") return `T(B) = ${fmt(model.fixedMs)} ms + ${fmt(model.perSampleMs)} ms · B`;
  return (
    `T(B) = ${fmt(model.lower.fixedMs)} + ${fmt(model.lower.perSampleMs)}·B ms for B ≤ ${model.breakBatch}, ` +
    `${fmt(model.upper.fixedMs)} + ${fmt(model.upper.perSampleMs)}·B ms above`
  );
}

function pointsFor(values: Values, profiles: readonly ProfileCurveOption[]): ProfilePoint[] | { error: string; field: BatchingField } | null {
  if (values.source === "points") {
    if (!values.points) return null;
    return values.points.map(([batch, latencyMs]) => ({ batch, latencyMs }));
  }
  const profile = profiles.find((p) => p.id === values.profile);
  if (!profile) return { error: profiles.length === 0 ? "No model profiles are available yet" : "Choose a profile", field: "profile" };
  if (values.threads === undefined) return null;
  const curve = profile.curves.find((c) => c.threads === values.threads);
  if (!curve) {
    return { error: `The profile has no curve for t = ${values.threads} (it has t = ${profile.curves.map((c) => c.threads).join(", ")})`, field: "threads" };
  }
  return curve.points;
}

function serviceModel(values: Values, profiles: readonly ProfileCurveOption[]): ModelRun<ServiceModelView, BatchingField> | null {
  if (values.source === undefined) return null;
  if (values.source === "typed") {
    const v = need(values, ["fixedMs", "perSampleMs"]);
    if (!v) return null;
    return runModel(() => {
      const model = affineServiceTime(v.fixedMs, v.perSampleMs);
      return { model, formula: formulaOf(model), fit: null, fitLine: [] };
    }, PARAMS, labelOf);
  }
  const points = pointsFor(values, profiles);
  if (points === null) return null;
  if ("error" in points) return { ok: false, message: points.error, field: points.field };
  return runModel(() => {
    const fit = fitServiceTime(points);
    const batches = points.map((p) => p.batch);
    const lo = Math.min(...batches);
    const hi = Math.max(...batches);
    const fitLine = Array.from({ length: 41 }, (_, i) => {
      const batch = lo + ((hi - lo) * i) / 40;
      return { batch, predictedMs: serviceTimeMs(fit.model, batch) };
    });
    return { model: fit.model, formula: formulaOf(fit.model), fit, fitLine };
  }, PARAMS, labelOf);
}

/** Batch sizes 1…1024 at four points per octave: smooth curves on a log axis. */
export const KNEE_BATCHES = Array.from({ length: 41 }, (_, i) => 2 ** (i / 4));

function knee(model: ServiceTimeModel, windowMs: number): KneeView {
  const rows = KNEE_BATCHES.map((batch) => ({
    batch,
    unpipelinedThroughputPerS: unpipelinedThroughputPerS(model, batch, windowMs),
    pipelinedThroughputPerS: batchThroughputPerS(model, batch),
    latencyMs: unpipelinedLatencyMs(model, batch, windowMs),
  }));
  const b = kneeBatch(model, windowMs);
  return {
    windowMs,
    kneeBatch: b,
    kneeLatencyMs: b === null ? null : unpipelinedLatencyMs(model, b, windowMs),
    kneeThroughputPerS: b === null ? null : unpipelinedThroughputPerS(model, b, windowMs),
    rows,
  };
}

/**
 * The frontier at λ. "full" takes every batch as full (envelope T_w + T(B_max), the chapter's §13.5.4 frontier, an
 * upper bound on the request-seen envelope) and applies the stability screen at λ; "seen" uses the request-seen p99
 * batch at λ (Eq. 12) as the core evaluates it.
 */
function pareto(model: ServiceTimeModel, v: Pick<FormValues<BatchingSpec>, "rate" | "windows" | "batches" | "limit" | "frontierBatch">): ParetoView {
  const candidates = [...new Set(v.windows)].flatMap((windowMs) => [...new Set(v.batches)].map((maxBatch) => ({ windowMs, maxBatch })));
  const key = (p: { windowMs: number; maxBatch: number }) => `${p.windowMs}/${p.maxBatch}`;
  let all: EvaluatedCandidate[];
  let frontier: EvaluatedCandidate[];
  let best: EvaluatedCandidate | null = null;
  if (v.frontierBatch === "seen") {
    const options = { arrivalRatePerS: v.rate };
    all = candidates.map((c) => evaluateCandidate(model, c, options));
    frontier = paretoFrontier(model, candidates, options);
    if (v.limit !== undefined) best = bestUnderLatencyLimit(model, candidates, v.limit, options);
  } else {
    all = candidates.map((c) => {
      const e = evaluateCandidate(model, c);
      return { ...e, stable: v.rate < e.throughputPerS };
    });
    const stableCandidates = all.filter((p) => p.stable).map(({ windowMs, maxBatch }) => ({ windowMs, maxBatch }));
    frontier = paretoFrontier(model, stableCandidates);
    if (v.limit !== undefined && stableCandidates.length > 0) best = bestUnderLatencyLimit(model, stableCandidates, v.limit);
  }
  const onFrontier = new Set(frontier.map(key));
  const stable = all.filter((p) => p.stable).map((p) => ({ ...p, onFrontier: onFrontier.has(key(p)) }));
  return {
    arrivalRatePerS: v.rate,
    batchMode: v.frontierBatch === "seen" ? "seen" : "full",
    stable,
    frontier: frontier.map((p) => ({ ...p, onFrontier: true })),
    dominated: stable.filter((p) => !p.onFrontier),
    unstable: all.filter((p) => !p.stable),
    limitMs: v.limit ?? null,
    best,
  };
}

function validator(model: ServiceTimeModel, v: Pick<FormValues<BatchingSpec>, "rate" | "slo" | "cWindow" | "cBatch" | "memCap" | "fraction">): ValidatorView {
  const validation = validateBatchingCandidate({
    model,
    arrivalRatePerS: v.rate,
    windowMs: v.cWindow,
    maxBatch: v.cBatch,
    sloMs: v.slo,
    windowFraction: v.fraction,
    ...(v.memCap !== undefined ? { memoryCapBatch: v.memCap } : {}),
  });
  const seen = requestSeenBatch(v.rate, v.cWindow);
  const tail = tailEnvelope(model, v.rate, v.cWindow, { maxBatch: v.cBatch });
  const budget = maxWindowMs(v.slo, v.fraction);
  return {
    validation,
    card: {
      batchingBudgetMs: budget,
      maxWindowMs: budget,
      poissonMean: seen.poissonMean,
      expectedSeenBatch: seen.mean,
      p99SeenBatch: seen.quantileBatch,
      envelopeMs: tail.envelopeMs,
      capacityPerS: batchThroughputPerS(model, v.cBatch),
      deratedCapacityPerS: deratedCapacityPerS(model, v.cBatch),
      offeredPerS: v.rate,
    },
  };
}

export function computeBatching(raw: BatchingState, profiles: readonly ProfileCurveOption[] = []): BatchingView {
  const spec = profileAwareSpec(profiles);
  const validation = validateForm(spec, raw) as FormValidation<BatchingSpec>;
  const values = validation.values;
  const errors: Partial<Record<BatchingField, string>> = { ...validation.errors };

  const service = serviceModel(values, profiles);
  if (service && !service.ok && service.field) errors[service.field] = service.message;
  const model = service?.ok ? service.value.model : null;

  let kneeRun: BatchingView["knee"] = null;
  let paretoRun: BatchingView["pareto"] = null;
  let validatorRun: BatchingView["validator"] = null;
  if (model) {
    if (values.kneeWindow !== undefined) {
      const w = values.kneeWindow;
      kneeRun = runModel(() => knee(model, w), { ...PARAMS, windowMs: "kneeWindow" }, labelOf);
    }
    const p = need(values, ["rate", "windows", "batches", "limit", "frontierBatch"]);
    if (p) {
      paretoRun = runModel(() => pareto(model, p), { ...PARAMS, windowMs: "windows", maxBatch: "batches" }, labelOf);
      if (!paretoRun.ok && paretoRun.field) errors[paretoRun.field] = paretoRun.message;
    }
    const c = need(values, ["rate", "slo", "cWindow", "cBatch", "memCap", "fraction"]);
    if (c) {
      validatorRun = runModel(() => validator(model, c), PARAMS, labelOf);
      if (!validatorRun.ok && validatorRun.field) errors[validatorRun.field] = validatorRun.message;
    }
  }

  return {
    validation,
    errors,
    service,
    knee: kneeRun,
    pareto: paretoRun,
    validator: validatorRun,
    kneeCsv: kneeCsv(kneeRun?.ok ? kneeRun.value : null),
    paretoCsv: paretoCsv(paretoRun?.ok ? paretoRun.value : null),
    fitCsv: fitCsv(service?.ok ? service.value : null),
  };
}

/** The spec with the given profiles as the "profile" field's options, so a stored profile id validates. */
export function profileAwareSpec(profiles: readonly ProfileCurveOption[]): BatchingSpec {
  if (profiles.length === 0) return batchingSpec;
  return {
    ...batchingSpec,
    profile: { ...batchingSpec.profile, options: [...batchingSpec.profile.options, ...profiles.map((p) => ({ value: p.id, label: p.label }))] },
  } as unknown as BatchingSpec;
}

export function kneeCsv(k: KneeView | null): CsvTable {
  return {
    columns: ["batch", "unpipelined_throughput_per_s", "pipelined_throughput_per_s", "window_plus_service_ms", "window_ms", "knee_batch"],
    rows: k ? k.rows.map((r) => [r.batch, r.unpipelinedThroughputPerS, r.pipelinedThroughputPerS, r.latencyMs, k.windowMs, k.kneeBatch]) : [],
  };
}

export function paretoCsv(p: ParetoView | null): CsvTable {
  const columns = ["window_ms", "max_batch", "throughput_per_s", "mean_latency_ms", "p99_envelope_ms", "status", "best_under_limit", "arrival_rate_per_s"];
  if (!p) return { columns, rows: [] };
  const isBest = (c: EvaluatedCandidate) => p.best !== null && p.best.windowMs === c.windowMs && p.best.maxBatch === c.maxBatch;
  const rows = [
    ...p.stable.map((c) => [c.windowMs, c.maxBatch, c.throughputPerS, c.meanLatencyMs, c.envelopeMs, c.onFrontier ? "frontier" : "dominated", isBest(c), p.arrivalRatePerS]),
    ...p.unstable.map((c) => [c.windowMs, c.maxBatch, c.throughputPerS, c.meanLatencyMs, c.envelopeMs, "unstable", false, p.arrivalRatePerS]),
  ];
  return { columns, rows };
}

export function fitCsv(s: ServiceModelView | null): CsvTable {
  const columns = ["batch", "measured_ms", "predicted_ms", "residual_ms", "relative_residual"];
  if (!s?.fit) return { columns, rows: [] };
  const chosen = s.fit.chosen === "affine" ? s.fit.affine : s.fit.twoSegment!;
  return { columns, rows: chosen.residuals.map((r) => [r.batch, r.latencyMs, r.predictedMs, r.residualMs, r.relativeResidual]) };
}

/** Residuals of the model the fit chose, for the table under the fit chart. */
export function chosenResiduals(fit: ServiceTimeFit) {
  return fit.chosen === "affine" ? fit.affine : fit.twoSegment!;
}

/**
 * The frontier chart's x axis (p99 envelope, ms): linear from 0 while the measured points sit near the model; when a
 * measured p99 is more than 5× the model's largest value (or the SLO), a log axis over whole decades so the model's
 * frontier stays readable beside the measurement.
 */
export function paretoXAxis(modelXs: readonly number[], measuredXs: readonly number[], sloMs: number): { scale: "linear" | "log"; domain: [number, number]; ticks: number[] } {
  const modelTop = Math.max(Number.isFinite(sloMs) ? sloMs : 0, ...modelXs, 1);
  const measuredTop = Math.max(0, ...measuredXs);
  if (measuredTop <= 5 * modelTop) {
    const nice = niceTicks(Math.max(modelTop, measuredTop) * 1.02);
    return { scale: "linear", domain: [0, nice.top], ticks: nice.ticks };
  }
  const xs = [...modelXs, ...measuredXs, ...(Number.isFinite(sloMs) && sloMs > 0 ? [sloMs] : [])].filter((x) => x > 0);
  const lo = 10 ** Math.floor(Math.log10(Math.min(...xs)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...xs) * 1.0001));
  const ticks: number[] = [];
  for (let decade = lo; decade < hi * 1.0001; decade *= 10) for (const m of [1, 2, 5]) if (decade * m <= hi * 1.0001) ticks.push(Number((decade * m).toPrecision(12)));
  return { scale: "log", domain: [lo, hi], ticks };
}
