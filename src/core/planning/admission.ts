/**
 * Admission deadline screen (F-21, §13.4.4): admit a request only if the work already ahead of it, plus its own
 * service, still fits its deadline. The chapter states it for one warmed, isolated FIFO worker without batching or
 * preemption, with UPPER BOUNDS on every service time and on the remaining outside-worker stages; means or per-stage
 * p99s cannot stand in for those bounds. The dispatcher calls this once per arriving request.
 *
 *   waiting_allowance = E2E_allowance − elapsed − outside_worker_bound_remaining − service_bound(arriving)
 *   outstanding_work  = residual_service_bound(in service) + Σ service_bound(queued)
 *   admit ⇔ outstanding_work ≤ waiting_allowance;   waiting_allowance < 0 ⇒ reject, even on an idle worker
 *
 * Generalized here to c identical instances pulling from one FIFO queue: until the arriving request starts, every
 * instance is busy with work that is ahead of it (a free instance would take the next request in line, and the
 * arriving one is next once the work ahead is gone), so its start is at most outstanding_work / c. With c = 1 that
 * is the chapter's rule exactly. If fewer requests are present than instances, it starts at once.
 */
import {
  PlanningInputError,
  requireNonNegative,
  requireNonNegativeInteger,
  requireNonNegativeList,
  requirePositive,
  requirePositiveInteger,
} from "./errors";

/** A smaller model the request may be served by instead (graceful degradation, F-20/F-21). */
export interface FallbackModel {
  serviceBoundMs: number;
  /** Loaded and warmed: a cold fallback would blow the very deadline it is meant to save. */
  residentAndWarm: boolean;
  /** Validated against the minimum quality the service accepts. */
  meetsQualityFloor: boolean;
}

export interface DeadlineScreenInput {
  /** The request's end-to-end deadline (the SLO allowance), measured from request start. */
  endToEndAllowanceMs: number;
  /** Time already spent since the request started (ingress, parsing, …). */
  elapsedMs: number;
  /** Upper bound on every outside-worker stage still to come, the response path included. */
  outsideWorkerBoundRemainingMs: number;
  /** Upper bound on the arriving request's own service on the primary model. */
  arrivingServiceBoundMs: number;
  /** Residual service bound of each request now being served (one entry per busy instance). */
  inServiceResidualBoundsMs: readonly number[];
  /** Service bound of each request queued ahead, in FIFO order. */
  queuedServiceBoundsMs: readonly number[];
  /** Identical instances serving the queue; 1 is the chapter's isolated worker. */
  instances?: number;
  fallback?: FallbackModel;
}

export type AdmissionDecision = "admit" | "admit-fallback" | "reject";

export interface DeadlineScreenResult {
  decision: AdmissionDecision;
  /** 503 on reject (§13.4.4), else 200. */
  httpStatus: 200 | 503;
  reason: "fits" | "fits-with-fallback" | "deadline-already-missed" | "backlog-exceeds-allowance";
  /** Allowance for waiting with the primary model's service bound. */
  waitingAllowanceMs: number;
  /** Σ bounds of the work ahead (in service + queued). */
  outstandingWorkMs: number;
  /** Upper bound on how long the request waits before it starts: outstanding / instances, or 0 if one is free. */
  waitBoundMs: number;
  /** Allowance with the fallback's bound, when a usable fallback was offered. */
  fallbackWaitingAllowanceMs?: number;
}

function waitBound(
  inService: readonly number[],
  queued: readonly number[],
  instances: number,
): { outstanding: number; bound: number } {
  const outstanding = [...inService, ...queued].reduce((sum, x) => sum + x, 0);
  // Fewer requests present than instances: one is free (or frees as the queue drains instantly) — start now.
  const bound = inService.length + queued.length < instances ? 0 : outstanding / instances;
  return { outstanding, bound };
}

export function screenDeadline(input: DeadlineScreenInput): DeadlineScreenResult {
  const allowance = requireNonNegative("endToEndAllowanceMs", input.endToEndAllowanceMs);
  const elapsed = requireNonNegative("elapsedMs", input.elapsedMs);
  const outside = requireNonNegative("outsideWorkerBoundRemainingMs", input.outsideWorkerBoundRemainingMs);
  const service = requirePositive("arrivingServiceBoundMs", input.arrivingServiceBoundMs);
  const inService = requireNonNegativeList("inServiceResidualBoundsMs", input.inServiceResidualBoundsMs);
  const queued = requireNonNegativeList("queuedServiceBoundsMs", input.queuedServiceBoundsMs);
  const instances = requirePositiveInteger("instances", input.instances ?? 1);
  if (inService.length > instances) {
    throw new PlanningInputError(
      "inconsistent",
      "inServiceResidualBoundsMs",
      `${inService.length} requests in service on ${instances} instance(s)`,
    );
  }
  if (input.fallback) requirePositive("fallback.serviceBoundMs", input.fallback.serviceBoundMs);

  const { outstanding, bound } = waitBound(inService, queued, instances);
  const base = allowance - elapsed - outside;
  const waitingAllowanceMs = base - service;
  const common = { waitingAllowanceMs, outstandingWorkMs: outstanding, waitBoundMs: bound };
  if (waitingAllowanceMs >= 0 && bound <= waitingAllowanceMs) {
    return { decision: "admit", httpStatus: 200, reason: "fits", ...common };
  }

  // A faster fallback shortens only the arriving request's own service; the work queued ahead stays.
  const fb = input.fallback;
  if (fb && fb.residentAndWarm && fb.meetsQualityFloor) {
    const fallbackWaitingAllowanceMs = base - fb.serviceBoundMs;
    if (fallbackWaitingAllowanceMs >= 0 && bound <= fallbackWaitingAllowanceMs) {
      return {
        decision: "admit-fallback",
        httpStatus: 200,
        reason: "fits-with-fallback",
        ...common,
        fallbackWaitingAllowanceMs,
      };
    }
    return {
      decision: "reject",
      httpStatus: 503,
      reason: rejectReason(waitingAllowanceMs),
      ...common,
      fallbackWaitingAllowanceMs,
    };
  }
  return { decision: "reject", httpStatus: 503, reason: rejectReason(waitingAllowanceMs), ...common };
}

function rejectReason(waitingAllowanceMs: number): "deadline-already-missed" | "backlog-exceeds-allowance" {
  return waitingAllowanceMs < 0 ? "deadline-already-missed" : "backlog-exceeds-allowance";
}

export interface QueueDepthScreenInput {
  endToEndAllowanceMs: number;
  elapsedMs: number;
  outsideWorkerBoundRemainingMs: number;
  /** One service-time upper bound for every request: the queue-count proxy is valid only for uniform costs. */
  serviceBoundMs: number;
  /** Requests waiting (not yet being served). */
  queueDepth: number;
  /** Requests now being served; each is charged a full service bound (its residual is not known). */
  inService: number;
  instances: number;
  fallback?: FallbackModel;
}

/** The deadline screen for a dispatcher that knows only counts: every request ahead costs serviceBoundMs. */
export function screenByQueueDepth(input: QueueDepthScreenInput): DeadlineScreenResult {
  const s = requirePositive("serviceBoundMs", input.serviceBoundMs);
  const depth = requireNonNegativeInteger("queueDepth", input.queueDepth);
  const busy = requireNonNegativeInteger("inService", input.inService);
  return screenDeadline({
    endToEndAllowanceMs: input.endToEndAllowanceMs,
    elapsedMs: input.elapsedMs,
    outsideWorkerBoundRemainingMs: input.outsideWorkerBoundRemainingMs,
    arrivingServiceBoundMs: s,
    inServiceResidualBoundsMs: new Array<number>(busy).fill(s),
    queuedServiceBoundsMs: new Array<number>(depth).fill(s),
    instances: input.instances,
    ...(input.fallback ? { fallback: input.fallback } : {}),
  });
}

/**
 * The largest number of requests that may be ahead (in service + queued, each charged serviceBoundMs) for a new
 * request to still be admitted: the queue-count proxy's cap. −1 when even an empty system misses the deadline.
 */
export function maxAdmissibleBacklog(
  input: Omit<QueueDepthScreenInput, "queueDepth" | "inService" | "fallback">,
): number {
  const allowance = requireNonNegative("endToEndAllowanceMs", input.endToEndAllowanceMs);
  const elapsed = requireNonNegative("elapsedMs", input.elapsedMs);
  const outside = requireNonNegative("outsideWorkerBoundRemainingMs", input.outsideWorkerBoundRemainingMs);
  const s = requirePositive("serviceBoundMs", input.serviceBoundMs);
  const c = requirePositiveInteger("instances", input.instances);
  const waitingAllowance = allowance - elapsed - outside - s;
  if (waitingAllowance < 0) return -1;
  // n ahead with n ≥ c waits n·s/c; fewer than c start at once. Largest n with n·s/c ≤ allowance, at least c − 1.
  // The closed form only estimates n; the exact cap is where screenByQueueDepth's own sum flips (a former 1e-9 nudge
  // admitted 3 ahead at s = 0.10000000000000002, allowance 0.4, c = 1, which the screen rejects).
  let byWork = Math.floor((waitingAllowance * c) / s);
  // The exact check sums n bounds, as the screen does; past EXACT_BACKLOG_LIMIT (or at Infinity, for a vanishing s)
  // the closed form stands: a one-request tie is immaterial there, and the check would cost as much as n screens.
  if (!Number.isFinite(byWork) || byWork > EXACT_BACKLOG_LIMIT) return Math.max(c - 1, byWork);
  for (let i = 0; i < 3 && byWork >= c && !backlogFits(byWork, s, c, waitingAllowance); i++) byWork--;
  for (let i = 0; i < 3 && backlogFits(byWork + 1, s, c, waitingAllowance); i++) byWork++;
  return Math.max(c - 1, byWork);
}

const EXACT_BACKLOG_LIMIT = 1_000_000;

/** screenDeadline's test for n uniform bounds ahead, with the same arithmetic (a running sum, then ÷ c). */
function backlogFits(n: number, s: number, c: number, waitingAllowance: number): boolean {
  if (n < c) return true;
  let outstanding = 0;
  for (let i = 0; i < n; i++) outstanding += s;
  return outstanding / c <= waitingAllowance;
}
