// The open-loop runner: requests leave at their scheduled times whatever the responses do. When the in-flight cap
// is reached at a request's intended time, that request is dropped and counted (a client-side drop), never delayed:
// delaying it would hide the server's slowness from the statistics (coordinated omission).
import { realClock, type Clock } from "./clock";
import { requireInteger, requireNumber } from "./errors";
import type { SendOutcome, Sender } from "./outcome";
import { RunRecorder, type ProgressSnapshot, type RunStats } from "./run-recorder";
import type { Schedule } from "./schedule";

export interface OpenLoopOptions {
  schedule: Schedule;
  send: Sender;
  /** Most requests outstanding at once; beyond it, arrivals are dropped and counted. */
  maxInFlight: number;
  /** Requests intended before this (ms from the start) are left out of the statistics. */
  warmupMs: number;
  clock?: Clock;
  /** Keep one record per request (tests, benchmarks); off for long runs. */
  keepRecords?: boolean;
  /** Stops scheduling; what is in flight still completes. */
  signal?: AbortSignal;
  /** Called about once a second of run time. */
  onProgress?: (snapshot: ProgressSnapshot) => void;
}

export interface OpenLoopResult extends RunStats {
  durationMs: number;
  /** Scheduled requests never reached because the run was stopped. */
  notReached: number;
}

export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const { schedule, send } = options;
  requireInteger("maxInFlight", options.maxInFlight, 1, 1_000_000);
  requireNumber("warmupMs", options.warmupMs, 0, Math.max(0, schedule.durationMs));
  const clock = options.clock ?? realClock;
  const recorder = new RunRecorder({ warmupMs: options.warmupMs, keepRecords: options.keepRecords });
  const offsets = schedule.offsetsMs;
  const pending = new Set<Promise<void>>();
  const start = clock.now();
  let inFlight = 0;
  let nextProgress = 1000;

  const launch = (index: number, intendedMs: number) => {
    inFlight++;
    const sentMs = clock.now() - start;
    recorder.sent(intendedMs, sentMs);
    const done = send(index)
      .catch((error: unknown): SendOutcome => ({
        kind: "transport_error",
        transport: "other",
        detail: `sender threw: ${(error as Error)?.message ?? String(error)}`,
      }))
      .then((outcome) => {
        inFlight--;
        const doneMs = clock.now() - start;
        recorder.completed(
          index,
          intendedMs,
          sentMs,
          doneMs,
          outcome,
          outcome.headersAtMs === undefined ? undefined : outcome.headersAtMs - start,
        );
      });
    pending.add(done);
    void done.finally(() => pending.delete(done));
  };

  let next = 0;
  while (next < offsets.length && !options.signal?.aborted) {
    const elapsed = clock.now() - start;
    // Everything due is sent now, in order; a late wake-up sends a burst, each request still timed from its own
    // intended time.
    while (next < offsets.length && offsets[next]! <= elapsed) {
      const intendedMs = offsets[next]!;
      if (inFlight >= options.maxInFlight) recorder.dropped(next, intendedMs);
      else launch(next, intendedMs);
      next++;
    }
    if (options.onProgress && elapsed >= nextProgress) {
      options.onProgress(recorder.snapshot(elapsed, inFlight));
      nextProgress = Math.floor(elapsed / 1000) * 1000 + 1000;
    }
    if (next < offsets.length)
      await clock.sleepUntil(start + (options.onProgress ? Math.min(offsets[next]!, nextProgress) : offsets[next]!));
  }
  const notReached = offsets.length - next;
  // Every request has its own deadline (the sender's timeout), so this ends.
  while (pending.size) await Promise.race(pending);
  const durationMs = clock.now() - start;
  options.onProgress?.(recorder.snapshot(durationMs, 0));
  const windowMs = Math.max(0, (notReached ? (offsets[next - 1] ?? 0) : schedule.durationMs) - options.warmupMs);
  return { ...recorder.finish(windowMs), durationMs, notReached };
}
