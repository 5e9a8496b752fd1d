// The load-test form's arithmetic: text fields → a load-test spec (each bad field named), how a spec reads in one
// line, and where the percentile-spectrum chart puts a percentile. Pure, so it is tested without a browser.
import type { LoadTestSpec } from "@/contracts/agent-jobs";

export type FormMode = LoadTestSpec["mode"];

export interface LoadTestFormValues {
  mode: FormMode;
  pattern: "constant" | "poisson";
  ratePerS: string;
  fromRatePerS: string;
  toRatePerS: string;
  steps: string;
  durationS: string;
  binary: boolean;
  batch: string;
  p99LimitMs: string;
  startRatePerS: string;
  maxRatePerS: string;
  stepS: string;
}

export class LoadTestFormError extends Error {
  constructor(
    readonly field: keyof LoadTestFormValues,
    message: string,
  ) {
    super(message);
    this.name = "LoadTestFormError";
  }
}

export const MAX_RATE_PER_S = 100_000;
export const MAX_DURATION_S = 600;

function number(
  values: LoadTestFormValues,
  field: keyof LoadTestFormValues,
  label: string,
  min: number,
  max: number,
  integer: boolean,
): number {
  const text = String(values[field]).trim();
  const value = Number(text);
  if (text === "" || !Number.isFinite(value)) throw new LoadTestFormError(field, `${label}: "${text}" is not a number`);
  if (integer && !Number.isInteger(value)) throw new LoadTestFormError(field, `${label} must be a whole number`);
  if (value < min || value > max) throw new LoadTestFormError(field, `${label} must be between ${min} and ${max}`);
  return value;
}

/** Rates must be > 0: the smallest accepted is 0.01 requests/s. */
const rate = (v: LoadTestFormValues, f: keyof LoadTestFormValues, label: string) =>
  number(v, f, label, 0.01, MAX_RATE_PER_S, false);

export function specFromForm(values: LoadTestFormValues): LoadTestSpec {
  const batch = number(values, "batch", "Rows per request", 1, 1024, true);
  const binary = values.binary;
  switch (values.mode) {
    case "open":
      return {
        mode: "open",
        pattern: values.pattern,
        ratePerS: rate(values, "ratePerS", "Rate"),
        durationS: number(values, "durationS", "Duration", 1, MAX_DURATION_S, true),
        binary,
        batch,
      };
    case "ramp":
      return {
        mode: "ramp",
        arrivals: values.pattern,
        fromRatePerS: rate(values, "fromRatePerS", "From rate"),
        toRatePerS: rate(values, "toRatePerS", "To rate"),
        steps: number(values, "steps", "Steps", 2, 20, true),
        durationS: number(values, "durationS", "Duration", 2, MAX_DURATION_S, true),
        binary,
        batch,
      };
    case "search": {
      const startRatePerS = rate(values, "startRatePerS", "Start rate");
      const maxRatePerS = rate(values, "maxRatePerS", "Maximum rate");
      if (startRatePerS > maxRatePerS)
        throw new LoadTestFormError("startRatePerS", "The start rate must not exceed the maximum rate");
      return {
        mode: "search",
        p99LimitMs: number(values, "p99LimitMs", "p99 limit", 0.001, 600_000, false),
        startRatePerS,
        maxRatePerS,
        stepS: number(values, "stepS", "Step duration", 1, 60, true),
        binary,
        batch,
      };
    }
  }
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2).replace(/0+$/, ""));

/** One line: "Poisson, 20 requests/s for 30 s · binary · 1 row per request". */
export function describeSpec(spec: LoadTestSpec): string {
  const tail = `${spec.binary ? "binary" : "JSON"} · ${spec.batch} row${spec.batch === 1 ? "" : "s"} per request`;
  switch (spec.mode) {
    case "open":
      return `${spec.pattern === "poisson" ? "Poisson" : "constant"}, ${fmt(spec.ratePerS)} requests/s for ${spec.durationS} s · ${tail}`;
    case "ramp":
      return `ramp ${fmt(spec.fromRatePerS)} → ${fmt(spec.toRatePerS)} requests/s in ${spec.steps} steps over ${spec.durationS} s (${spec.arrivals}) · ${tail}`;
    case "search":
      return `max rate with p99 ≤ ${fmt(spec.p99LimitMs)} ms: ${fmt(spec.startRatePerS)} → ≤ ${fmt(spec.maxRatePerS)} requests/s, ${spec.stepS} s steps · ${tail}`;
  }
}

/**
 * Where a percentile sits on the spectrum chart's x axis: its "nines", −log10(1 − p/100), so 90 → 1, 99 → 2,
 * 99.9 → 3; p = 100 (the maximum) is drawn one nine past the last finite point (cap).
 */
export function ninesOf(percentile: number, cap: number): number {
  if (!Number.isFinite(percentile) || percentile < 0 || percentile > 100)
    throw new LoadTestFormError("p99LimitMs", `percentile ${percentile} is outside [0, 100]`);
  if (percentile === 100) return cap;
  return Math.min(cap, Math.max(0, -Math.log10(1 - percentile / 100))); // max(0, ·): p = 0 gives +0, not −0
}

/** The search's p99 limit the form proposes: the model's SLO deadline when its quantile is p99, else none. */
export function sloP99LimitMs(slo: { deadlineMs: number; quantile: number | null } | null): number | null {
  return slo && slo.quantile !== null && Math.abs(slo.quantile - 0.99) < 1e-9 ? slo.deadlineMs : null;
}
