// Arrival schedules: the intended send times of every request of a run, computed up front as a pure function of
// the pattern and a seed, so a run is reproducible and the runner never lets responses decide when to send.
import { Prng } from "@packrat/core/stats/prng";
import { LoadgenInputError, requireInteger, requireNumber } from "./errors";

export type Arrivals = "constant" | "poisson";

export interface RateSegment {
  rate: number;
  durationMs: number;
}

export type Pattern =
  | { kind: "constant"; rate: number }
  | { kind: "poisson"; rate: number }
  /** Alternating phases: onMs at onRate, then offMs at offRate (often 0), repeated. */
  | { kind: "bursts"; onRate: number; offRate: number; onMs: number; offMs: number; arrivals: Arrivals }
  /** Rates held for given durations, in order (a step ramp). */
  | { kind: "steps"; steps: RateSegment[]; arrivals: Arrivals }
  /** Recorded arrival times (ms from the first), replayed `speed` times faster. */
  | { kind: "replay"; timesMs: readonly number[]; speed: number };

export interface ScheduleOptions {
  durationMs: number;
  seed: number;
  /** No schedule holds more requests than this; a longer one is cut and marked truncated. */
  maxRequests: number;
}

export interface Schedule {
  /** Intended send times in ms from the start of the run, nondecreasing, each < durationMs. */
  offsetsMs: Float64Array;
  durationMs: number;
  truncated: boolean;
}

/** The most arrivals one schedule may hold (80 MB of offsets). */
export const MAX_SCHEDULE_REQUESTS = 10_000_000;
export const MAX_RATE_PER_S = 1_000_000;
export const MAX_DURATION_MS = 24 * 3_600_000;

/** The rate segments a pattern stands for over [0, durationMs). */
function segmentsOf(
  pattern: Exclude<Pattern, { kind: "replay" }>,
  durationMs: number,
): { segments: Iterable<RateSegment>; arrivals: Arrivals } {
  switch (pattern.kind) {
    case "constant":
    case "poisson":
      requireNumber("rate", pattern.rate, 0, MAX_RATE_PER_S);
      return {
        segments: [{ rate: pattern.rate, durationMs }],
        arrivals: pattern.kind === "constant" ? "constant" : "poisson",
      };
    case "bursts": {
      requireNumber("onRate", pattern.onRate, 0, MAX_RATE_PER_S);
      requireNumber("offRate", pattern.offRate, 0, MAX_RATE_PER_S);
      requireNumber("onMs", pattern.onMs, 0, MAX_DURATION_MS);
      requireNumber("offMs", pattern.offMs, 0, MAX_DURATION_MS);
      if (pattern.onMs + pattern.offMs < 1)
        throw new LoadgenInputError("invalid_pattern", "onMs", "an on/off cycle must last at least 1 ms");
      const { onRate, offRate, onMs, offMs } = pattern;
      // Lazily: the caller stops at the run's end, however short the cycle.
      const cycles = function* (): Generator<RateSegment> {
        for (;;) {
          if (onMs > 0) yield { rate: onRate, durationMs: onMs };
          if (offMs > 0) yield { rate: offRate, durationMs: offMs };
        }
      };
      return { segments: cycles(), arrivals: pattern.arrivals };
    }
    case "steps":
      if (pattern.steps.length === 0)
        throw new LoadgenInputError("invalid_pattern", "steps", "needs at least one step");
      pattern.steps.forEach((s, i) => {
        requireNumber(`steps[${i}].rate`, s.rate, 0, MAX_RATE_PER_S);
        requireNumber(`steps[${i}].durationMs`, s.durationMs, 0, MAX_DURATION_MS);
      });
      return { segments: pattern.steps, arrivals: pattern.arrivals };
  }
}

/** The intended send times of a run. Deterministic: the same pattern, duration and seed give the same times. */
export function buildSchedule(pattern: Pattern, options: ScheduleOptions): Schedule {
  const durationMs = requireNumber("durationMs", options.durationMs, 0, MAX_DURATION_MS);
  const maxRequests = requireInteger("maxRequests", options.maxRequests, 1, MAX_SCHEDULE_REQUESTS);
  requireInteger("seed", options.seed, 0, 0xffffffff);
  const out: number[] = [];
  let truncated = false;

  if (pattern.kind === "replay") {
    requireNumber("speed", pattern.speed, 1e-6, 1e6);
    let previous = 0;
    for (const [i, t] of pattern.timesMs.entries()) {
      requireNumber(`timesMs[${i}]`, t, 0, Number.MAX_SAFE_INTEGER);
      if (t < previous)
        throw new LoadgenInputError("invalid_pattern", `timesMs[${i}]`, `goes back in time (${t} after ${previous})`);
      previous = t;
      const at = t / pattern.speed;
      if (at >= durationMs) break;
      if (out.length === maxRequests) {
        truncated = true;
        break;
      }
      out.push(at);
    }
    return { offsetsMs: Float64Array.from(out), durationMs, truncated };
  }

  const { segments, arrivals } = segmentsOf(pattern, durationMs);
  const random = new Prng(options.seed);
  let start = 0;
  for (const segment of segments) {
    if (start >= durationMs || truncated) break;
    const end = Math.min(durationMs, start + segment.durationMs);
    if (segment.rate > 0) {
      if (arrivals === "constant") {
        // t_k = start + 1000·k / rate, from k (never summed, so rounding cannot drift; 1000·k is exact, so
        // 3/s gives exactly 0, 333.3…, 666.6… and not a fourth arrival at 999.99…).
        for (let k = 0; ; k++) {
          const t = start + (k * 1000) / segment.rate;
          if (t >= end) break;
          if (out.length === maxRequests) {
            truncated = true;
            break;
          }
          out.push(t);
        }
      } else {
        // A Poisson process restarted at each segment boundary is still one (exponential gaps are memoryless).
        const ratePerMs = segment.rate / 1000;
        for (let t = start + random.exponential(ratePerMs); t < end; t += random.exponential(ratePerMs)) {
          if (out.length === maxRequests) {
            truncated = true;
            break;
          }
          out.push(t);
        }
      }
    }
    start = end;
  }
  return { offsetsMs: Float64Array.from(out), durationMs, truncated };
}

/** How long a pattern runs when no duration is given: the steps' total, or the replayed trace's length. */
export function naturalDurationMs(pattern: Pattern): number | undefined {
  if (pattern.kind === "steps") return pattern.steps.reduce((sum, s) => sum + s.durationMs, 0);
  if (pattern.kind === "replay")
    return pattern.timesMs.length ? pattern.timesMs[pattern.timesMs.length - 1]! / pattern.speed + 1 : 0;
  return undefined;
}

/** Mean gap and coefficient of variation (stddev / mean) of the gaps between consecutive times. */
export function interArrivalStats(times: ArrayLike<number>): { count: number; meanMs: number; cv: number } {
  if (times.length < 3)
    throw new LoadgenInputError("out_of_range", "times", `needs at least 3 times for 2 gaps, got ${times.length}`);
  const gaps: number[] = [];
  for (let i = 1; i < times.length; i++) gaps.push(times[i]! - times[i - 1]!);
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  if (!(mean > 0)) throw new LoadgenInputError("out_of_range", "times", "all times are equal: the gaps have no mean");
  const variance = gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / (gaps.length - 1);
  return { count: gaps.length, meanMs: mean, cv: Math.sqrt(variance) / mean };
}
