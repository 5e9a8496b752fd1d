/**
 * Latency budget (F-02, F-03, Table 3, Checkpoint 13.1): the request path's stages against an SLO, each stage's
 * share, the allowance left for the worker, and the Amdahl what-if with its queueing dividend under load (F-12).
 */
import { PlanningInputError, requireNonNegative, requireOpenUnit, requirePositive } from "./errors";
import { mm1, queueingUtilization, type QueueMetrics } from "./queueing";

/** The request path's stages, in order (§13.3.1); "transfer" is the host→device copy where one exists. */
export const STAGE_KINDS = [
  "network",
  "deserialize",
  "preprocess",
  "transfer",
  "queue",
  "batchFormation",
  "inference",
  "postprocess",
  "serialize",
] as const;
export type StageKind = (typeof STAGE_KINDS)[number];

export interface LatencyStage {
  /** What the stage does, e.g. "JPEG decode". */
  name: string;
  kind: StageKind;
  durationMs: number;
}

/** A latency SLO couples a deadline with the completion quantile it must hold at (Definition 13.2). */
export interface LatencySlo {
  deadlineMs: number;
  /** e.g. 0.99 for p99; the budget is meaningless without one. */
  quantile: number;
}

export interface StageShare extends LatencyStage {
  /** Exact share of the total, in percent. */
  sharePercent: number;
  /** Share rounded to a whole percent on its own: the column need not sum to 100 (Table 3). */
  roundedSharePercent: number;
}

export interface KindShare {
  kind: StageKind;
  durationMs: number;
  sharePercent: number;
  roundedSharePercent: number;
}

export interface LatencyBudget {
  slo: LatencySlo;
  totalMs: number;
  /** deadline − total; negative when the path overruns. */
  remainingMs: number;
  withinDeadline: boolean;
  stages: StageShare[];
  /** Stages summed by kind, in STAGE_KINDS order, only kinds present. */
  byKind: KindShare[];
}

function requireSlo(slo: LatencySlo): LatencySlo {
  requirePositive("slo.deadlineMs", slo.deadlineMs);
  requireOpenUnit("slo.quantile", slo.quantile);
  return slo;
}

export function latencyBudget(input: { slo: LatencySlo; stages: readonly LatencyStage[] }): LatencyBudget {
  const slo = requireSlo(input.slo);
  if (!Array.isArray(input.stages) || input.stages.length === 0) {
    throw new PlanningInputError("out_of_range", "stages", "needs at least one stage");
  }
  input.stages.forEach((stage, i) => {
    requireNonNegative(`stages[${i}].durationMs`, stage.durationMs);
    if (!STAGE_KINDS.includes(stage.kind))
      throw new PlanningInputError("out_of_range", `stages[${i}].kind`, `unknown stage kind ${String(stage.kind)}`);
  });
  const totalMs = input.stages.reduce((sum, stage) => sum + stage.durationMs, 0);
  if (totalMs <= 0) throw new PlanningInputError("not_positive", "stages", "the stages' durations sum to zero");
  const share = (ms: number) => (100 * ms) / totalMs;
  const stages = input.stages.map((stage) => ({
    ...stage,
    sharePercent: share(stage.durationMs),
    roundedSharePercent: Math.round(share(stage.durationMs)),
  }));
  const byKind = STAGE_KINDS.flatMap((kind) => {
    const of = input.stages.filter((stage) => stage.kind === kind);
    if (of.length === 0) return [];
    const durationMs = of.reduce((sum, stage) => sum + stage.durationMs, 0);
    return [{ kind, durationMs, sharePercent: share(durationMs), roundedSharePercent: Math.round(share(durationMs)) }];
  });
  const remainingMs = slo.deadlineMs - totalMs;
  return { slo, totalMs, remainingMs, withinDeadline: remainingMs >= 0, stages, byKind };
}

export interface WorkerAllowance {
  /** What is left for queueing + inference: deadline − outside-worker upper bound (Checkpoint 13.1). */
  workerAllowanceMs: number;
  feasible: boolean;
}

/**
 * The allowance inside the worker. The outside-worker figure must be an upper bound on those stages, not their
 * mean or their own p99: a mean of 18 ms cannot certify a p99 (Napkin 13.3 Step 0), hence the field's name.
 */
export function workerAllowance(input: { slo: LatencySlo; outsideWorkerUpperBoundMs: number }): WorkerAllowance {
  const slo = requireSlo(input.slo);
  const outside = requireNonNegative("outsideWorkerUpperBoundMs", input.outsideWorkerUpperBoundMs);
  const workerAllowanceMs = slo.deadlineMs - outside;
  return { workerAllowanceMs, feasible: workerAllowanceMs > 0 };
}

export interface AmdahlWhatIf {
  beforeMs: number;
  afterMs: number;
  /** beforeMs / afterMs. */
  speedup: number;
  /** (before − after) / before. */
  latencyReduction: number;
  /** The limit as the stage becomes free: total / (total − stage); null when the stage is the whole path. */
  ceilingSpeedup: number | null;
}

/**
 * Amdahl on a serial path (F-03): T_new = T − T_stage + T_stage / k. Holds for one isolated request with the other
 * stages fixed; under load see queueingDividend.
 */
export function amdahlWhatIf(input: { totalMs: number; stageMs: number; speedupFactor: number }): AmdahlWhatIf {
  const total = requirePositive("totalMs", input.totalMs);
  const stage = requireNonNegative("stageMs", input.stageMs);
  const k = requirePositive("speedupFactor", input.speedupFactor);
  if (stage > total)
    throw new PlanningInputError("inconsistent", "stageMs", `stage ${stage} ms exceeds the total ${total} ms`);
  const afterMs = total - stage + stage / k;
  const rest = total - stage;
  return {
    beforeMs: total,
    afterMs,
    speedup: total / afterMs,
    latencyReduction: (total - afterMs) / total,
    ceilingSpeedup: rest > 0 ? total / rest : null,
  };
}

/** Amdahl over a budget's stages: speed up every stage of the given kinds by the same factor. */
export function amdahlOnKinds(budget: LatencyBudget, kinds: readonly StageKind[], speedupFactor: number): AmdahlWhatIf {
  const stageMs = budget.stages.filter((s) => kinds.includes(s.kind)).reduce((sum, s) => sum + s.durationMs, 0);
  return amdahlWhatIf({ totalMs: budget.totalMs, stageMs, speedupFactor });
}

export interface QueueingDividend {
  before: QueueMetrics;
  after: QueueMetrics;
  /** Service-time ratio S / S′: what an isolated benchmark shows. */
  modelSpeedup: number;
  /** W_q / W_q′: the queue shrinks superlinearly because ρ falls too. Null when there was no queueing before. */
  queueImprovement: number | null;
  /** W / W′ at the same arrival rate. */
  systemSpeedup: number;
}

/**
 * Fallacy 1 / F-12: at a fixed arrival rate, a faster model lowers ρ as well as S, so the mean time in system
 * falls by more than the model speedup. M/M/1 on both sides.
 */
export function queueingDividend(input: {
  arrivalRatePerS: number;
  serviceTimeMs: number;
  newServiceTimeMs: number;
}): QueueingDividend {
  const before = mm1({ arrivalRatePerS: input.arrivalRatePerS, serviceTimeMs: input.serviceTimeMs });
  const newService = requirePositive("newServiceTimeMs", input.newServiceTimeMs);
  if (queueingUtilization({ arrivalRatePerS: input.arrivalRatePerS, serviceTimeMs: newService }) >= 1) {
    throw new PlanningInputError(
      "unstable",
      "newServiceTimeMs",
      "the new service time puts ρ ≥ 1 at this arrival rate",
    );
  }
  const after = mm1({ arrivalRatePerS: input.arrivalRatePerS, serviceTimeMs: newService });
  return {
    before,
    after,
    modelSpeedup: input.serviceTimeMs / input.newServiceTimeMs,
    queueImprovement: after.meanWaitMs > 0 ? before.meanWaitMs / after.meanWaitMs : null,
    systemSpeedup: before.meanSojournMs / after.meanSojournMs,
  };
}
