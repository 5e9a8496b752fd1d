import { AlertRuleError } from "./alert-rules";

/**
 * When to retry a webhook delivery that failed: base·2^(attempt−1), capped at maxMs (attempt 1 is the first try).
 * No jitter: one control-plane replica delivers at a time, so retries of many alerts never stampede one receiver
 * in step with other senders.
 */
export function deliveryRetryDelayMs(attempt: number, baseMs: number, maxMs: number): number {
  if (!(Number.isInteger(attempt) && attempt >= 1))
    throw new AlertRuleError("invalid-threshold", "attempt", `must be an integer ≥ 1, got ${attempt}`);
  if (!(Number.isFinite(baseMs) && baseMs > 0))
    throw new AlertRuleError("invalid-threshold", "baseMs", `must be a finite number > 0, got ${baseMs}`);
  if (!(Number.isFinite(maxMs) && maxMs >= baseMs))
    throw new AlertRuleError("invalid-threshold", "maxMs", `must be finite and ≥ baseMs (${baseMs}), got ${maxMs}`);
  // 2^(attempt−1) overflows to Infinity past attempt 1024: cap the exponent first.
  return Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 60));
}
