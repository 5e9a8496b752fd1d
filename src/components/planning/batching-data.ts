/**
 * Batching planner (F-23…F-38, Figure 6, Table 8, Table 10, §13.5.4 frontier), the computation: the service-time
 * model (typed T(B) = F + s·B, a fit to profiled points, or a model's stored profile), the throughput–latency knee,
 * the Pareto frontier over (window, max batch) candidates at an arrival rate, and the validator for one candidate.
 * Pure: the page only renders this. Its form is batching-form.ts, its CSV exports batching-csv.ts.
 */
import { validateBatchingCandidate, type BatchingValidation } from "@/core/batching/config-validator";
import { kneeBatch, unpipelinedLatencyMs, unpipelinedThroughputPerS } from "@/core/batching/knee";
import {
  evaluateCandidate,
  paretoFrontier,
  bestUnderLatencyLimit,
  type EvaluatedCandidate,
} from "@/core/batching/pareto-frontier";
import {
  affineServiceTime,
  batchThroughputPerS,
  serviceTimeMs,
  type ServiceTimeModel,
} from "@/core/batching/service-time";
import { fitServiceTime, type ProfilePoint, type ServiceTimeFit } from "@/core/batching/service-time-fit";
import { tailEnvelope } from "@/core/batching/latency-screens";
import { deratedCapacityPerS } from "@/core/batching/stability";
import { maxWindowMs } from "@/core/batching/window-rule";
import { requestSeenBatch } from "@/core/batching/window-arrivals";
import type { CsvTable } from "@/lib/planning/csv";
import { need, validateForm, type FormValidation, type FormValues } from "@/lib/planning/fields";
import { runModel, type ModelRun } from "@/lib/planning/run-model";
import {
  batchingSpec,
  profileAwareSpec,
  type BatchingField,
  type BatchingSpec,
  type BatchingState,
  type ProfileCurveOption,
} from "./batching-form";
import { fitCsv, kneeCsv, paretoCsv } from "./batching-csv";

const labelOf = (k: BatchingField) => batchingSpec[k].label;
type Values = Partial<FormValues<BatchingSpec>>;

/**
 * The model's point for one (window, max batch) on the frontier's axes, as the frontier computes it: the p99
 * envelope (full batches, or the request-seen p99 batch at λ) and the saturated throughput B_max/T(B_max).
 */
export function modelPointFor(
  model: ServiceTimeModel,
  candidate: { windowMs: number; maxBatch: number },
  rate: number,
  mode: string,
): { envelopeMs: number; throughputPerS: number } {
  const e =
    mode === "seen"
      ? evaluateCandidate(model, candidate, { arrivalRatePerS: rate })
      : evaluateCandidate(model, candidate);
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

function pointsFor(
  values: Values,
  profiles: readonly ProfileCurveOption[],
): ProfilePoint[] | { error: string; field: BatchingField } | null {
  if (values.source === "points") {
    if (!values.points) return null;
    return values.points.map(([batch, latencyMs]) => ({ batch, latencyMs }));
  }
  const profile = profiles.find((p) => p.id === values.profile);
  if (!profile)
    return {
      error: profiles.length === 0 ? "No model profiles are available yet" : "Choose a profile",
      field: "profile",
    };
  if (values.threads === undefined) return null;
  const curve = profile.curves.find((c) => c.threads === values.threads);
  if (!curve) {
    return {
      error: `The profile has no curve for t = ${values.threads} (it has t = ${profile.curves.map((c) => c.threads).join(", ")})`,
      field: "threads",
    };
  }
  return curve.points;
}

function serviceModel(
  values: Values,
  profiles: readonly ProfileCurveOption[],
): ModelRun<ServiceModelView, BatchingField> | null {
  if (values.source === undefined) return null;
  if (values.source === "typed") {
    const v = need(values, ["fixedMs", "perSampleMs"]);
    if (!v) return null;
    return runModel(
      () => {
        const model = affineServiceTime(v.fixedMs, v.perSampleMs);
        return { model, formula: formulaOf(model), fit: null, fitLine: [] };
      },
      PARAMS,
      labelOf,
    );
  }
  const points = pointsFor(values, profiles);
  if (points === null) return null;
  if ("error" in points) return { ok: false, message: points.error, field: points.field };
  return runModel(
    () => {
      const fit = fitServiceTime(points);
      const batches = points.map((p) => p.batch);
      const lo = Math.min(...batches);
      const hi = Math.max(...batches);
      const fitLine = Array.from({ length: 41 }, (_, i) => {
        const batch = lo + ((hi - lo) * i) / 40;
        return { batch, predictedMs: serviceTimeMs(fit.model, batch) };
      });
      return { model: fit.model, formula: formulaOf(fit.model), fit, fitLine };
    },
    PARAMS,
    labelOf,
  );
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
function pareto(
  model: ServiceTimeModel,
  v: Pick<FormValues<BatchingSpec>, "rate" | "windows" | "batches" | "limit" | "frontierBatch">,
): ParetoView {
  const candidates = [...new Set(v.windows)].flatMap((windowMs) =>
    [...new Set(v.batches)].map((maxBatch) => ({ windowMs, maxBatch })),
  );
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
    if (v.limit !== undefined && stableCandidates.length > 0)
      best = bestUnderLatencyLimit(model, stableCandidates, v.limit);
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

function validator(
  model: ServiceTimeModel,
  v: Pick<FormValues<BatchingSpec>, "rate" | "slo" | "cWindow" | "cBatch" | "memCap" | "fraction">,
): ValidatorView {
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
