import { PlanningInputError } from "../planning/errors";
import { finite, nonNegative, positive, positiveInteger } from "./guards";
import { serviceTimeMs, type ServiceTimeModel } from "./service-time";

/**
 * Replays arrivals through a dual-trigger dynamic batcher (F-34, Example 13.4). A batch becomes eligible when the
 * buffer holds B_max requests or the oldest buffered request has waited T_w; it dispatches when a worker is free:
 * "the timeout determines eligibility, while worker availability determines actual dispatch". Times in ms.
 */

export interface DispatchTraceInput {
  /** Arrival times, nondecreasing. */
  arrivalsMs: readonly number[];
  windowMs: number;
  maxBatch: number;
  model: ServiceTimeModel;
  /** When each worker is first free; default one worker free at 0. */
  workerAvailableAtMs?: number | readonly number[];
  /** Response path after the batch finishes (post-processing, network back). Default 0. */
  remainingPathMs?: number;
  /** Per-request deadline measured from its arrival; slack is reported when given. */
  deadlineMs?: number;
  /**
   * Which requests a batch holds: "at-dispatch" (default) lets arrivals join an eligible batch while it waits for a
   * worker, up to B_max; "at-eligibility" closes the batch when it becomes eligible.
   */
  seal?: "at-dispatch" | "at-eligibility";
}

export interface TracedBatch {
  index: number;
  size: number;
  /** Which trigger made it eligible. */
  trigger: "max-batch" | "timer";
  eligibleMs: number;
  dispatchMs: number;
  /** Time the eligible batch waited for a worker. */
  resourceWaitMs: number;
  worker: number;
  serviceMs: number;
  /** dispatch + T(size) + remaining path */
  completionMs: number;
}

export interface TracedRequest {
  arrivalMs: number;
  batch: number;
  /** Wait until its batch was eligible (0 for a request that joined an already eligible batch). */
  formationWaitMs: number;
  /** Wait for a worker after it and its batch were ready. */
  resourceWaitMs: number;
  completionMs: number;
  latencyMs: number;
  /** deadline − latency; null without a deadline. */
  slackMs: number | null;
}

export interface DispatchTrace {
  batches: TracedBatch[];
  requests: TracedRequest[];
}

export function traceDualTriggerDispatch(input: DispatchTraceInput): DispatchTrace {
  const windowMs = nonNegative("windowMs", input.windowMs);
  const maxBatch = positiveInteger("maxBatch", input.maxBatch);
  const remaining = nonNegative("remainingPathMs", input.remainingPathMs ?? 0);
  const deadline = input.deadlineMs === undefined ? null : positive("deadlineMs", input.deadlineMs);
  const seal = input.seal ?? "at-dispatch";
  const arrivals = input.arrivalsMs;
  arrivals.forEach((t, i) => {
    finite(`arrivalsMs[${i}]`, t);
    if (i > 0 && t < (arrivals[i - 1] as number)) {
      throw new PlanningInputError("inconsistent", `arrivalsMs[${i}]`, "arrival times must be nondecreasing");
    }
  });
  const avail = input.workerAvailableAtMs ?? 0;
  const workers = (typeof avail === "number" ? [avail] : [...avail]).map((t, i) =>
    finite(`workerAvailableAtMs[${i}]`, t),
  );
  if (workers.length === 0)
    throw new PlanningInputError("out_of_range", "workerAvailableAtMs", "needs at least one worker");

  const batches: TracedBatch[] = [];
  const requests: TracedRequest[] = [];
  let head = 0;
  while (head < arrivals.length) {
    const oldest = arrivals[head] as number;
    const timerAt = oldest + windowMs;
    const fillIndex = head + maxBatch - 1;
    const fillAt = fillIndex < arrivals.length ? (arrivals[fillIndex] as number) : Infinity;
    const trigger = fillAt <= timerAt ? "max-batch" : "timer";
    const eligibleMs = Math.min(fillAt, timerAt);

    let worker = 0;
    workers.forEach((t, i) => {
      if (t < (workers[worker] as number)) worker = i;
    });
    const dispatchMs = Math.max(eligibleMs, workers[worker] as number);

    const sealAt = seal === "at-dispatch" ? dispatchMs : eligibleMs;
    let size = 0;
    while (size < maxBatch && head + size < arrivals.length && (arrivals[head + size] as number) <= sealAt) size++;

    const serviceMs = serviceTimeMs(input.model, size);
    const completionMs = dispatchMs + serviceMs + remaining;
    workers[worker] = dispatchMs + serviceMs;
    const index = batches.length;
    batches.push({
      index,
      size,
      trigger,
      eligibleMs,
      dispatchMs,
      resourceWaitMs: dispatchMs - eligibleMs,
      worker,
      serviceMs,
      completionMs,
    });

    for (let i = head; i < head + size; i++) {
      const arrivalMs = arrivals[i] as number;
      const readyMs = Math.max(eligibleMs, arrivalMs);
      const latencyMs = completionMs - arrivalMs;
      requests.push({
        arrivalMs,
        batch: index,
        formationWaitMs: readyMs - arrivalMs,
        resourceWaitMs: dispatchMs - readyMs,
        completionMs,
        latencyMs,
        slackMs: deadline === null ? null : deadline - latencyMs,
      });
    }
    head += size;
  }
  return { batches, requests };
}
