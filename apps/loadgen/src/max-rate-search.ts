// The highest rate whose p99 stays under a limit (step ramp): hold a rate for a step, raise it by a factor while
// steps pass, then bisect between the last passing and the first failing rate. A step passes when its p99 (from
// intended send time) is within the limit and almost nothing failed or was dropped.
import { requireInteger, requireNumber } from "./errors";

export interface StepMeasurement {
  p99Ms: number;
  intended: number;
  ok: number;
}

export interface SearchStep extends StepMeasurement {
  rate: number;
  passed: boolean;
  reason: string;
}

export interface MaxRateSearchOptions {
  startRate: number;
  /** The ramp never goes above this rate. */
  maxRate: number;
  /** Each passing step multiplies the rate by this (> 1). */
  factor: number;
  p99LimitMs: number;
  /** A step fails when more than this fraction of its requests did not succeed (errors and drops). */
  maxFailureFraction: number;
  /** Bisection steps after the ramp finds a failing rate. */
  refineSteps: number;
  /** Runs one step at a rate (requests/s) and measures it. */
  runStep: (rate: number) => Promise<StepMeasurement>;
}

export interface MaxRateSearchResult {
  /** The highest passing rate; undefined when even the start rate failed. */
  maxRate?: number;
  /** The lowest failing rate; undefined when the ramp reached maxRate without failing. */
  firstFailingRate?: number;
  steps: SearchStep[];
}

/** The pass/fail rule for one step. */
export function judgeStep(
  m: StepMeasurement,
  p99LimitMs: number,
  maxFailureFraction: number,
): { passed: boolean; reason: string } {
  if (m.intended === 0) return { passed: false, reason: "no requests were due in the step" };
  const failed = (m.intended - m.ok) / m.intended;
  if (failed > maxFailureFraction)
    return {
      passed: false,
      reason: `${(failed * 100).toFixed(2)}% of requests failed or were dropped (limit ${(maxFailureFraction * 100).toFixed(2)}%)`,
    };
  if (m.p99Ms > p99LimitMs) return { passed: false, reason: `p99 ${m.p99Ms.toFixed(1)} ms > ${p99LimitMs} ms` };
  return { passed: true, reason: `p99 ${m.p99Ms.toFixed(1)} ms ≤ ${p99LimitMs} ms` };
}

export async function searchMaxRate(options: MaxRateSearchOptions): Promise<MaxRateSearchResult> {
  requireNumber("maxRate", options.maxRate, 1e-3, 1e6);
  requireNumber("startRate", options.startRate, 1e-3, options.maxRate);
  requireNumber("factor", options.factor, 1.01, 100);
  requireNumber("p99LimitMs", options.p99LimitMs, 1e-3, 3_600_000);
  requireNumber("maxFailureFraction", options.maxFailureFraction, 0, 1);
  requireInteger("refineSteps", options.refineSteps, 0, 20);
  const steps: SearchStep[] = [];
  const step = async (rate: number) => {
    const m = await options.runStep(rate);
    const verdict = judgeStep(m, options.p99LimitMs, options.maxFailureFraction);
    steps.push({ rate, ...m, ...verdict });
    return verdict.passed;
  };

  let pass: number | undefined;
  let fail: number | undefined;
  for (let rate = options.startRate; ; rate = Math.min(options.maxRate, rate * options.factor)) {
    if (await step(rate)) pass = rate;
    else {
      fail = rate;
      break;
    }
    if (rate >= options.maxRate) break;
  }
  if (fail !== undefined) {
    let high: number = fail;
    for (let i = 0; i < options.refineSteps; i++) {
      const mid: number = ((pass ?? 0) + high) / 2;
      if (await step(mid)) pass = mid;
      else high = mid;
    }
    fail = high;
  }
  return { maxRate: pass, firstFailingRate: fail, steps };
}
