/**
 * Queueing models of the serving chapter (digest §1B, F-11…F-17) and the capacity arithmetic built on them
 * (F-14, F-15). Units are in the names: rates per second (…PerS), times in milliseconds (…Ms). Every model is a
 * planning estimate under Poisson arrivals; a load test must confirm it (Table 19 caption).
 */
import {
  PlanningInputError,
  requireFinite,
  requireNonNegative,
  requireNonNegativeInteger,
  requireOpenUnit,
  requirePositive,
  requirePositiveInteger,
} from "./errors";

const MS_PER_S = 1000;

/** ln(100) = 4.60517…: the exact p99 multiple of an exponential sojourn time; the default. */
export const LN_100 = Math.log(100);
/** The chapter's rounded p99 multiple (Eq. 5, "≈ 4.6"); pass it to reproduce the chapter's numbers. */
export const CHAPTER_P99_MULTIPLIER = 4.6;
/** Erlang-B recursion is O(c); this bound only stops a typo from spinning for minutes. */
export const MAX_SERVERS = 1_000_000;

/** Poisson arrivals at a server (or each of c servers) whose mean service time is serviceTimeMs. */
export interface QueueInput {
  arrivalRatePerS: number;
  serviceTimeMs: number;
}

export interface MultiServerQueueInput extends QueueInput {
  servers: number;
}

/** Steady-state means of a stable queue. Wait is time in the queue only; sojourn is wait + service. */
export interface QueueMetrics {
  /** Queueing utilization ρ = λ·S / c (the per-server offered load). */
  utilization: number;
  meanWaitMs: number;
  meanSojournMs: number;
  /** Mean sojourn as a multiple of the service time, W/S (Table 7's "latency multiple"). */
  latencyMultiple: number;
  /** Mean number waiting, L_q = λ·W_q (Little). */
  meanInQueue: number;
  /** Mean number in the system, N = λ·W (Little). */
  meanInSystem: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Little's law (F-11): N = λ·W for any stable, conserving system.

export function littleConcurrency(input: { arrivalRatePerS: number; meanTimeInSystemMs: number }): number {
  const lambda = requireNonNegative("arrivalRatePerS", input.arrivalRatePerS);
  const w = requireNonNegative("meanTimeInSystemMs", input.meanTimeInSystemMs);
  return (lambda * w) / MS_PER_S;
}

export function littleArrivalRatePerS(input: { concurrency: number; meanTimeInSystemMs: number }): number {
  const n = requireNonNegative("concurrency", input.concurrency);
  const w = requirePositive("meanTimeInSystemMs", input.meanTimeInSystemMs);
  return (n / w) * MS_PER_S;
}

export function littleTimeInSystemMs(input: { concurrency: number; arrivalRatePerS: number }): number {
  const n = requireNonNegative("concurrency", input.concurrency);
  const lambda = requirePositive("arrivalRatePerS", input.arrivalRatePerS);
  return (n / lambda) * MS_PER_S;
}

// ---------------------------------------------------------------------------------------------------------------
// Three different "utilizations" (Appendix D.11). They answer different questions and must never share a label.

/** Queueing utilization ρ = λ·S / c. Not capped at 1: a value ≥ 1 is the overload the caller must see. */
export function queueingUtilization(input: QueueInput & { servers?: number }): number {
  const lambda = requireNonNegative("arrivalRatePerS", input.arrivalRatePerS);
  const s = requirePositive("serviceTimeMs", input.serviceTimeMs);
  const c = requirePositiveInteger("servers", input.servers ?? 1);
  return (lambda * s) / MS_PER_S / c;
}

/**
 * Duty cycle (Eq. 2): Σ kernel-active time / (wall-clock time × resource count). The kernel-active time is the union
 * of busy intervals per resource, so it cannot exceed wall-clock × resources.
 */
export function dutyCycle(input: { busyMs: number; wallClockMs: number; resourceCount?: number }): number {
  const busy = requireNonNegative("busyMs", input.busyMs);
  const wall = requirePositive("wallClockMs", input.wallClockMs);
  const resources = requirePositiveInteger("resourceCount", input.resourceCount ?? 1);
  if (busy > wall * resources * (1 + 1e-12)) {
    throw new PlanningInputError(
      "inconsistent",
      "busyMs",
      `busy time ${busy} ms exceeds wall clock × resources (${wall * resources} ms)`,
    );
  }
  return Math.min(1, busy / (wall * resources));
}

/**
 * Accelerator duty cycle of a pipelined request path (§13.3.5): with requests in flight, the slower of the host
 * stage (spread over its workers) and the model stage sets the pace, so duty = model / max(host / workers, model).
 */
export function pipelinedDutyCycle(input: { modelStageMs: number; hostStageMs: number; hostWorkers?: number }): number {
  const model = requirePositive("modelStageMs", input.modelStageMs);
  const host = requireNonNegative("hostStageMs", input.hostStageMs);
  const workers = requirePositiveInteger("hostWorkers", input.hostWorkers ?? 1);
  return model / Math.max(host / workers, model);
}

/** Fixed-cost share F / T(B): the part of a batch's service time that does not grow with the batch. */
export function fixedCostShare(input: { fixedMs: number; batchServiceTimeMs: number }): number {
  const fixed = requireNonNegative("fixedMs", input.fixedMs);
  const total = requirePositive("batchServiceTimeMs", input.batchServiceTimeMs);
  if (fixed > total)
    throw new PlanningInputError(
      "inconsistent",
      "fixedMs",
      `fixed part ${fixed} ms exceeds the batch service time ${total} ms`,
    );
  return fixed / total;
}

// ---------------------------------------------------------------------------------------------------------------
// Single-server models.

function stableUtilization(input: QueueInput, servers: number): number {
  const rho = queueingUtilization({ ...input, servers });
  if (rho >= 1) {
    throw new PlanningInputError(
      "unstable",
      "arrivalRatePerS",
      `utilization ρ = ${rho} ≥ 1: the queue grows without bound, no finite latency exists`,
    );
  }
  return rho;
}

function metrics(lambdaPerS: number, serviceMs: number, rho: number, waitMs: number): QueueMetrics {
  const sojourn = waitMs + serviceMs;
  return {
    utilization: rho,
    meanWaitMs: waitMs,
    meanSojournMs: sojourn,
    latencyMultiple: sojourn / serviceMs,
    meanInQueue: (lambdaPerS * waitMs) / MS_PER_S,
    meanInSystem: (lambdaPerS * sojourn) / MS_PER_S,
  };
}

/** M/M/1 (Eq. 4): W = S / (1 − ρ), W_q = S·ρ / (1 − ρ). */
export function mm1(input: QueueInput): QueueMetrics {
  const rho = stableUtilization(input, 1);
  const s = input.serviceTimeMs;
  return metrics(input.arrivalRatePerS, s, rho, (s * rho) / (1 - rho));
}

/** Table 7's latency multiple W/S = 1 / (1 − ρ), from a utilization directly. */
export function mm1LatencyMultiple(utilization: number): number {
  const rho = requireNonNegative("utilization", utilization);
  if (rho >= 1) throw new PlanningInputError("unstable", "utilization", `ρ = ${rho} ≥ 1 has no finite latency`);
  return 1 / (1 - rho);
}

/** M/M/1 sojourn percentile (Eq. 5, exact form): the sojourn is exponential with mean W, so t_q = W·ln(1/(1 − q)). */
export function mm1SojournPercentileMs(input: QueueInput, quantile: number): number {
  const q = requireOpenUnit("quantile", quantile);
  return -mm1(input).meanSojournMs * Math.log1p(-q);
}

/**
 * The chapter's tail estimate p99 ≈ m·S / (1 − ρ) with a configurable multiple m: ln 100 by default, 4.6 to
 * reproduce the chapter's displayed numbers (Appendix D.2).
 */
export function mm1TailLatencyMs(input: QueueInput, p99Multiplier: number = LN_100): number {
  const m = requirePositive("p99Multiplier", p99Multiplier);
  return m * mm1(input).meanSojournMs;
}

/**
 * M/D/1, deterministic service (F-16, Pollaczek–Khinchine with zero service variance):
 * W_q = ρ·S / (2(1 − ρ)), half of M/M/1's wait at the same load.
 */
export function md1(input: QueueInput): QueueMetrics {
  const rho = stableUtilization(input, 1);
  const s = input.serviceTimeMs;
  return metrics(input.arrivalRatePerS, s, rho, (s * rho) / (2 * (1 - rho)));
}

// ---------------------------------------------------------------------------------------------------------------
// M/M/c with Erlang C (F-17).

function requireServers(servers: number): number {
  requirePositiveInteger("servers", servers);
  if (servers > MAX_SERVERS)
    throw new PlanningInputError("out_of_range", "servers", `must be ≤ ${MAX_SERVERS}, got ${servers}`);
  return servers;
}

/**
 * Erlang B (blocking probability of c servers offered a erlangs), by the recursion B₀ = 1,
 * B_k = a·B_{k−1} / (k + a·B_{k−1}). It never forms a^c or c!, so it stays accurate for c in the thousands.
 */
export function erlangB(servers: number, offeredLoadErlangs: number): number {
  const c = requireServers(servers);
  const a = requireNonNegative("offeredLoadErlangs", offeredLoadErlangs);
  let b = 1;
  for (let k = 1; k <= c; k++) b = (a * b) / (k + a * b);
  return b;
}

/** Erlang C, the probability an arrival waits: C = c·B / (c − a·(1 − B)), defined for a < c. */
export function erlangC(servers: number, offeredLoadErlangs: number): number {
  const c = requireServers(servers);
  const a = requireNonNegative("offeredLoadErlangs", offeredLoadErlangs);
  if (a >= c)
    throw new PlanningInputError(
      "unstable",
      "offeredLoadErlangs",
      `offered load ${a} erlangs ≥ ${c} servers: no steady state`,
    );
  const b = erlangB(c, a);
  return (c * b) / (c - a * (1 - b));
}

export interface MmcMetrics extends QueueMetrics {
  servers: number;
  /** a = λ·S in erlangs (the mean number of busy servers). */
  offeredLoadErlangs: number;
  /** Erlang C: the probability that an arrival finds every server busy and waits. */
  probabilityOfWaiting: number;
}

interface MmcRates {
  c: number;
  lambdaPerMs: number;
  muPerMs: number;
  /** θ = cμ − λ, the decay rate of the conditional wait. */
  thetaPerMs: number;
  waitProbability: number;
}

function mmcRates(input: MultiServerQueueInput): MmcRates {
  const c = requireServers(input.servers);
  stableUtilization(input, c);
  const lambdaPerMs = input.arrivalRatePerS / MS_PER_S;
  const muPerMs = 1 / input.serviceTimeMs;
  return {
    c,
    lambdaPerMs,
    muPerMs,
    thetaPerMs: c * muPerMs - lambdaPerMs,
    waitProbability: erlangC(c, lambdaPerMs / muPerMs),
  };
}

/** M/M/c: W_q = C / (cμ − λ), W = W_q + S. With c = 1 it is M/M/1 exactly (C = ρ). */
export function mmc(input: MultiServerQueueInput): MmcMetrics {
  const r = mmcRates(input);
  const rho = queueingUtilization(input);
  return {
    ...metrics(input.arrivalRatePerS, input.serviceTimeMs, rho, r.waitProbability / r.thetaPerMs),
    servers: r.c,
    offeredLoadErlangs: r.lambdaPerMs / r.muPerMs,
    probabilityOfWaiting: r.waitProbability,
  };
}

/** P(wait > t) = C·e^(−θt) for t ≥ 0. */
export function mmcWaitSurvival(input: MultiServerQueueInput, tMs: number): number {
  const t = requireNonNegative("tMs", tMs);
  const r = mmcRates(input);
  return r.waitProbability * Math.exp(-r.thetaPerMs * t);
}

/**
 * P(sojourn > t). The sojourn is service ~ Exp(μ) plus, with probability C, an independent Exp(θ) wait, so
 * P = (1 − C)·e^(−μt) + C·P(Exp(θ) + Exp(μ) > t). The hypoexponential tail is written as
 * e^(−αt)·(1 + α·(1 − e^(−dt))/d) with α = min(θ, μ), d = |θ − μ|: no cancellation, no overflow, and its d → 0
 * limit (1 + αt)·e^(−αt) falls out of expm1.
 */
export function mmcSojournSurvival(input: MultiServerQueueInput, tMs: number): number {
  const t = requireNonNegative("tMs", tMs);
  return sojournSurvival(mmcRates(input), t);
}

function sojournSurvival(r: MmcRates, t: number): number {
  const slow = Math.min(r.thetaPerMs, r.muPerMs);
  const d = Math.abs(r.thetaPerMs - r.muPerMs);
  const growth = d === 0 ? t : -Math.expm1(-d * t) / d;
  const hypo = Math.exp(-slow * t) * (1 + slow * growth);
  return (1 - r.waitProbability) * Math.exp(-r.muPerMs * t) + r.waitProbability * hypo;
}

/** Wait percentile: 0 when the arrival most likely does not wait (q ≤ 1 − C), else ln(C / (1 − q)) / θ. */
export function mmcWaitPercentileMs(input: MultiServerQueueInput, quantile: number): number {
  const q = requireOpenUnit("quantile", quantile);
  const r = mmcRates(input);
  if (1 - q >= r.waitProbability) return 0;
  return Math.log(r.waitProbability / (1 - q)) / r.thetaPerMs;
}

/**
 * Sojourn percentile by bisection on the closed-form tail above (it has no closed-form inverse for c > 1).
 * The tail is continuous and strictly decreasing from 1, so doubling finds a bracket and bisection converges.
 */
export function mmcSojournPercentileMs(input: MultiServerQueueInput, quantile: number): number {
  const q = requireOpenUnit("quantile", quantile);
  const r = mmcRates(input);
  const target = 1 - q;
  let lo = 0;
  let hi = r.waitProbability / r.thetaPerMs + 1 / r.muPerMs; // the mean sojourn: a natural first guess
  for (let i = 0; i < 2000 && sojournSurvival(r, hi) > target; i++) {
    lo = hi;
    hi *= 2;
  }
  for (let i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
    const mid = 0.5 * (lo + hi);
    if (sojournSurvival(r, mid) > target) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

// ---------------------------------------------------------------------------------------------------------------
// Utilization–latency curve (Figure 5 / Table 7) for a dashboard: model curves in ms against ρ.

export interface UtilizationLatencyPoint {
  utilization: number;
  mm1MeanMs: number;
  mm1P99Ms: number;
  md1MeanMs: number;
}

export function utilizationLatencyCurve(input: {
  serviceTimeMs: number;
  /** Highest ρ sampled; the book plots up to 0.95. */
  maxUtilization?: number;
  /** Number of evenly spaced points from ρ = 0 to maxUtilization inclusive. */
  points?: number;
  p99Multiplier?: number;
}): UtilizationLatencyPoint[] {
  const s = requirePositive("serviceTimeMs", input.serviceTimeMs);
  const maxRho = requireOpenUnit("maxUtilization", input.maxUtilization ?? 0.95);
  const n = requirePositiveInteger("points", input.points ?? 20);
  if (n < 2) throw new PlanningInputError("out_of_range", "points", `must be ≥ 2, got ${n}`);
  const m = requirePositive("p99Multiplier", input.p99Multiplier ?? LN_100);
  return Array.from({ length: n }, (_, i) => {
    const rho = (maxRho * i) / (n - 1);
    const mean = s / (1 - rho);
    return { utilization: rho, mm1MeanMs: mean, mm1P99Ms: m * mean, md1MeanMs: s * (1 + rho / (2 * (1 - rho))) };
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Safe utilization (F-14) and replica counts (F-15).

export interface SafeUtilizationInput {
  serviceTimeMs: number;
  /** Budget for the modeled boundary only (queue wait + service) at p99, or end-to-end if an allowance is given. */
  p99BudgetMs: number;
  /** Upper bound for the stages outside the worker; subtracted from the budget first (Napkin 13.3 Step 0). */
  outsideWorkerUpperBoundMs?: number;
  /** p99 multiple of the mean sojourn: ln 100 by default; the chapter uses 4.6. */
  p99Multiplier?: number;
}

export type SafeUtilization =
  | { feasible: true; maxUtilization: number; modelBudgetMs: number; idleP99Ms: number }
  | { feasible: false; reason: string; modelBudgetMs: number; idleP99Ms: number };

/**
 * ρ_max = 1 − m·S / B: the highest M/M/1 utilization whose p99 sojourn m·S/(1 − ρ) fits the budget B. When even an
 * idle server's p99 (m·S) misses the budget, no utilization is safe and the answer says so instead of a ρ ≤ 0.
 */
export function safeUtilization(input: SafeUtilizationInput): SafeUtilization {
  const s = requirePositive("serviceTimeMs", input.serviceTimeMs);
  const budget = requirePositive("p99BudgetMs", input.p99BudgetMs);
  const outside = requireNonNegative("outsideWorkerUpperBoundMs", input.outsideWorkerUpperBoundMs ?? 0);
  const m = requirePositive("p99Multiplier", input.p99Multiplier ?? LN_100);
  const modelBudgetMs = budget - outside;
  const idleP99Ms = m * s;
  if (modelBudgetMs <= idleP99Ms) {
    return {
      feasible: false,
      reason: `an idle server's p99 (${idleP99Ms.toFixed(3)} ms) already exceeds the ${modelBudgetMs.toFixed(3)} ms left for queueing and service`,
      modelBudgetMs,
      idleP99Ms,
    };
  }
  return { feasible: true, maxUtilization: 1 - idleP99Ms / modelBudgetMs, modelBudgetMs, idleP99Ms };
}

/**
 * ceil that forgives floating-point dust: 100 × 1.1 is 110.00000000000001 in binary and must give 110
 * replicas, not 111. A relative slack of 1e-9 is far below any planning input's precision.
 */
export function ceilTolerant(value: number): number {
  requireFinite("value", value);
  return Math.ceil(value - 1e-9 * Math.max(1, Math.abs(value)));
}

export interface ReplicasInput {
  peakArrivalRatePerS: number;
  /** What one replica serves at saturation: 1/S for one-at-a-time service, B/T(B) for a batched plan. */
  perReplicaRatePerS: number;
  /** ρ_max from safeUtilization (or a policy value), in (0, 1). */
  maxUtilization: number;
  /** Extra capacity on top of the base count, as a fraction (0.30 = 30%). */
  headroomFraction: number;
  /** Simultaneous replica failures to survive (N+k); 1 by default. */
  redundancyK?: number;
}

export interface AfterFailures {
  /** Replicas provisioned under this reading. */
  replicas: number;
  /** Replicas left after k fail. */
  replicasLeft: number;
  /** ρ on the survivors, λ / (μ·replicasLeft); null when none are left. */
  utilizationAfterFailures: number | null;
  withinMaxUtilization: boolean;
}

export interface ReplicaPlan {
  requiredServiceRatePerS: number;
  /** μ_required / μ per replica before rounding (Napkin 13.3 Step 3's "26.1"). */
  exactReplicas: number;
  baseReplicas: number;
  finalReplicas: number;
  /** The final fleet losing k replicas (Step 5's N+1 check when k = 1). */
  postFailure: AfterFailures;
  /** N+k read as base + k: survives k failures at the same ρ_max ("29 GPUs"). */
  nPlusKOnBase: AfterFailures;
  /** N+k read as final + k: keeps the headroom after k failures ("about 38 GPUs"). */
  nPlusKOnFinal: AfterFailures;
}

function afterFailures(replicas: number, k: number, lambda: number, mu: number, maxRho: number): AfterFailures {
  const left = replicas - k;
  if (left <= 0)
    return { replicas, replicasLeft: Math.max(0, left), utilizationAfterFailures: null, withinMaxUtilization: false };
  const rho = lambda / (mu * left);
  return { replicas, replicasLeft: left, utilizationAfterFailures: rho, withinMaxUtilization: rho <= maxRho };
}

/** F-15: μ_required = λ_peak / ρ_max; base = ⌈μ_required / μ⌉; final = ⌈base·(1 + headroom)⌉; N+k both ways. */
export function replicasForPeak(input: ReplicasInput): ReplicaPlan {
  const lambda = requirePositive("peakArrivalRatePerS", input.peakArrivalRatePerS);
  const mu = requirePositive("perReplicaRatePerS", input.perReplicaRatePerS);
  const maxRho = requireOpenUnit("maxUtilization", input.maxUtilization);
  const headroom = requireNonNegative("headroomFraction", input.headroomFraction);
  const k = requireNonNegativeInteger("redundancyK", input.redundancyK ?? 1);
  const required = lambda / maxRho;
  const exact = required / mu;
  const base = ceilTolerant(exact);
  const final = ceilTolerant(base * (1 + headroom));
  return {
    requiredServiceRatePerS: required,
    exactReplicas: exact,
    baseReplicas: base,
    finalReplicas: final,
    postFailure: afterFailures(final, k, lambda, mu, maxRho),
    nPlusKOnBase: afterFailures(base + k, k, lambda, mu, maxRho),
    nPlusKOnFinal: afterFailures(final + k, k, lambda, mu, maxRho),
  };
}
