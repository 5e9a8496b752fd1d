// Closed loop (perf_analyzer style): `concurrency` clients, each sending its next request as soon as the previous
// one answers. It measures capacity, not latency under a given load: the server sets the pace, so a slow server
// is sent less (latency here is from the actual send, which is also the intended one). Sweep concurrency 1, 2, 4, …
// for a capacity curve.
import { realClock, type Clock } from "./clock";
import { requireInteger, requireNumber } from "./errors";
import type { SendOutcome, Sender } from "./outcome";
import { RunRecorder, totalErrors, type ProgressSnapshot, type RunStats } from "./run-recorder";

export interface ClosedLoopOptions {
  concurrency: number;
  send: Sender;
  /** The run ends at this duration or after maxRequests, whichever comes first. */
  durationMs: number;
  maxRequests: number;
  warmupMs: number;
  clock?: Clock;
  keepRecords?: boolean;
  signal?: AbortSignal;
  onProgress?: (snapshot: ProgressSnapshot) => void;
}

export interface ClosedLoopResult extends RunStats {
  concurrency: number;
  durationMs: number;
}

export async function runClosedLoop(options: ClosedLoopOptions): Promise<ClosedLoopResult> {
  requireInteger("concurrency", options.concurrency, 1, 100_000);
  requireNumber("durationMs", options.durationMs, 0, 24 * 3_600_000);
  requireInteger("maxRequests", options.maxRequests, 1, 100_000_000);
  requireNumber("warmupMs", options.warmupMs, 0, options.durationMs);
  const clock = options.clock ?? realClock;
  const recorder = new RunRecorder({ warmupMs: options.warmupMs, keepRecords: options.keepRecords });
  const start = clock.now();
  let issued = 0;
  let inFlight = 0;
  let lastProgress = 0;
  let measuredEnd = start;

  const worker = async () => {
    for (;;) {
      const sentMs = clock.now() - start;
      if (sentMs >= options.durationMs || issued >= options.maxRequests || options.signal?.aborted) return;
      const index = issued++;
      inFlight++;
      recorder.sent(sentMs, sentMs);
      const outcome = await options.send(index).catch((error: unknown): SendOutcome => ({
        kind: "transport_error",
        transport: "other",
        detail: `sender threw: ${(error as Error)?.message ?? String(error)}`,
      }));
      inFlight--;
      const doneMs = clock.now() - start;
      measuredEnd = Math.max(measuredEnd, start + doneMs);
      recorder.completed(
        index,
        sentMs,
        sentMs,
        doneMs,
        outcome,
        outcome.headersAtMs === undefined ? undefined : outcome.headersAtMs - start,
      );
      if (options.onProgress && doneMs - lastProgress >= 1000) {
        lastProgress = doneMs;
        options.onProgress(recorder.snapshot(doneMs, inFlight));
      }
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  const durationMs = clock.now() - start;
  options.onProgress?.(recorder.snapshot(durationMs, 0));
  // Rates are over the measured window: from the end of the warm-up to the last answer.
  const windowMs = Math.max(0, measuredEnd - start - options.warmupMs);
  return { ...recorder.finish(windowMs), concurrency: options.concurrency, durationMs };
}

export interface SweepRow {
  concurrency: number;
  okPerS: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  ok: number;
  errors: number;
}

/** One closed-loop run per concurrency level, in order. */
export async function sweepConcurrency(
  levels: readonly number[],
  run: (concurrency: number) => Promise<ClosedLoopResult>,
): Promise<{ rows: SweepRow[]; runs: ClosedLoopResult[] }> {
  if (levels.length === 0) throw new RangeError("sweepConcurrency: no levels");
  const runs: ClosedLoopResult[] = [];
  for (const level of levels) runs.push(await run(level));
  return {
    runs,
    rows: runs.map((r) => ({
      concurrency: r.concurrency,
      okPerS: r.okPerS,
      p50Ms: r.latency.p50Ms,
      p90Ms: r.latency.p90Ms,
      p99Ms: r.latency.p99Ms,
      ok: r.measured.ok,
      errors: totalErrors(r.measured),
    })),
  };
}

/** 1, 2, 4, … up to and including max (and max itself when it is not a power of two). */
export function powersOfTwoUpTo(max: number): number[] {
  requireInteger("max", max, 1, 100_000);
  const levels: number[] = [];
  for (let c = 1; c <= max; c *= 2) levels.push(c);
  if (levels[levels.length - 1] !== max) levels.push(max);
  return levels;
}
