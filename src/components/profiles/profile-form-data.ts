/**
 * The "Profile this deployment" form's arithmetic: the grid ⟨t, b⟩ ∈ {chosen threads} × {2⁰ … max batch} (Packrat
 * §3.2: powers of two keep (n + 1) · T cells instead of 2ⁿ · T), its size, the stopping-rule presets, and the
 * duration estimate read as a range.
 */

import { PROFILE_BATCH_LIMIT, profileBatchesUpTo } from "@/core/profiling/profile-grid";

export const MAX_BATCH_CHOICES: readonly number[] = profileBatchesUpTo(PROFILE_BATCH_LIMIT);

export type RulePreset = "decision" | "adaptive" | "paper";

export const RULE_PRESETS: ReadonlyArray<{ value: RulePreset; label: string; detail: string }> = [
  {
    value: "decision",
    label: "Decision-aware (default)",
    detail:
      "warm-up 3, rounds of 3 iterations, at least 4 rounds; a cell stops once its 95% interval cannot change the optimizer's plan for any B by more than 2%; ≤ 30 iterations, ≤ 60 s per cell",
  },
  {
    value: "adaptive",
    label: "Precision 2%",
    detail:
      "warm-up 5, then until the 95% confidence half-width of the mean is ≤ 2% of the mean; 10–200 iterations, ≤ 30 s per cell",
  },
  {
    value: "paper",
    label: "Paper (10 + 100)",
    detail: "the paper's fixed protocol: 10 warm-up, then exactly 100 measured iterations per cell",
  },
];

export class ProfileFormError extends Error {
  readonly code = "invalid_input";
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
    this.name = "ProfileFormError";
  }
}

/** 1, 2, 4, … up to `max` (a power of two, 1 … PROFILE_BATCH_LIMIT). */
export function batchesUpTo(max: number): number[] {
  if (!Number.isInteger(max) || max < 1 || max > PROFILE_BATCH_LIMIT || (max & (max - 1)) !== 0) {
    throw new ProfileFormError(
      "maxBatch",
      `the largest batch must be a power of two from 1 to ${PROFILE_BATCH_LIMIT}, not ${max}`,
    );
  }
  return profileBatchesUpTo(max);
}

/** Every thread count of a budget of T cores: 1 … T (the default grid). */
export function allThreads(cores: number): number[] {
  if (!Number.isInteger(cores) || cores < 1)
    throw new ProfileFormError("cores", `the core budget must be a whole number ≥ 1, not ${cores}`);
  return Array.from({ length: cores }, (_, i) => i + 1);
}

/** The chosen thread counts, checked against the budget: at least one, each in 1 … T, ascending, no repeats. */
export function chosenThreads(selected: readonly number[], cores: number): number[] {
  const threads = [...new Set(selected)].sort((a, b) => a - b);
  if (threads.length === 0) throw new ProfileFormError("threads", "choose at least one thread count");
  const outside = threads.filter((t) => !Number.isInteger(t) || t < 1 || t > cores);
  if (outside.length)
    throw new ProfileFormError(
      "threads",
      `thread counts must be between 1 and the budget's ${cores} cores (not ${outside.join(", ")})`,
    );
  return threads;
}

/** "t ∈ {1, 2} × b ∈ {1, 2, 4} = 6 cells". */
export function describeGrid(threads: readonly number[], batches: readonly number[]): string {
  const set = (xs: readonly number[]) =>
    xs.length > 6 ? `{${xs.slice(0, 3).join(", ")}, …, ${xs[xs.length - 1]}}` : `{${xs.join(", ")}}`;
  const cells = threads.length * batches.length;
  return `t ∈ ${set(threads)} × b ∈ ${set(batches)} = ${cells} cell${cells === 1 ? "" : "s"}`;
}

/** Positive whole sizes for the dynamic non-batch dimensions (e.g. sequence = 128), by name. */
export function parseDimensions(raw: Record<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, text] of Object.entries(raw)) {
    const value = Number(text.trim());
    if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < 1 || value > 1_000_000) {
      throw new ProfileFormError(`dimensions.${name}`, `${name} must be a whole number from 1 to 1,000,000`);
    }
    out[name] = value;
  }
  return out;
}

export interface DurationEstimate {
  probeMs: number;
  lowMs: number;
  highMs: number;
}

/** Where an estimate's t=1, b=1 time came from: the form's own probe, or an earlier profile's cell (the fallback). */
export type EstimateSource = "probe" | "earlier-profile";

/**
 * What the form says before the job starts: a range from a t=1, b=1 time scaled by b / t per cell. The probe (3
 * iterations on the agent, asked for when the form opens or the version changes) is the estimate; an earlier
 * profile's cell of the version is the immediate fallback, labelled as such, until the probe answers or if it fails.
 */
export function describeEstimate(
  estimate: DurationEstimate | null | undefined,
  format: (ms: number) => string,
  source: EstimateSource = "probe",
): string {
  if (!estimate) {
    return source === "probe"
      ? "No estimate: the probe measured nothing."
      : "No earlier-profile estimate: no profile of this version has measured t=1, b=1.";
  }
  const say = (ms: number) => format(ms).replace(/^< /, "under ");
  const [low, high] = [say(estimate.lowMs), say(estimate.highMs)];
  const range = low !== high ? `${low} to ${high}` : low.startsWith("under") ? low : `about ${low}`;
  const probe = Number(estimate.probeMs.toPrecision(3));
  return source === "probe"
    ? `Estimated duration: ${range} of measuring (from a 3-iteration probe at t=1, b=1: ${probe} ms, scaled by b / t per cell), plus loading the model.`
    : `Earlier-profile estimate: ${range} of measuring (from an earlier profile's t=1, b=1 cell: ${probe} ms, scaled by b / t per cell), plus loading the model.`;
}
