import { PlanningInputError } from "../planning/errors";
import { nonNegative, nonNegativeInteger, positive, positiveInteger } from "../batching/guards";

/**
 * KV budget → concurrency (F-58): device memory minus weights minus a runtime workspace reserve is what the cache may
 * use; it trades concurrent sequences against context length (Figure 8). When the request cannot fit, the answer
 * says so with the shortfall in bytes instead of a zero or a negative count.
 */

export interface KvMemoryInput {
  deviceBytes: number;
  weightBytes: number;
  /** Runtime workspace, activations, graphs: held back from the cache. Default 0. */
  workspaceBytes?: number;
  bytesPerToken: number;
  /** Hypotheses kept per sequence; default 1. */
  beamWidth?: number;
}

export type DoesNotFitReason =
  | "weights-fill-memory"
  | "one-sequence-exceeds-budget"
  | "one-token-per-sequence-exceeds-budget"
  | "request-exceeds-budget";

export interface DoesNotFit {
  fits: false;
  reason: DoesNotFitReason;
  /** Memory free for the cache; negative when weights and workspace alone overflow. */
  budgetBytes: number;
  /** Weights + workspace + the smallest cache asked for. */
  requiredBytes: number;
  /** requiredBytes − deviceBytes: what must be found (smaller weights, less workspace, more memory). */
  shortfallBytes: number;
}

function normalise(input: KvMemoryInput) {
  const deviceBytes = positive("deviceBytes", input.deviceBytes);
  const weightBytes = nonNegative("weightBytes", input.weightBytes);
  const workspaceBytes = nonNegative("workspaceBytes", input.workspaceBytes ?? 0);
  const bytesPerToken = positive("bytesPerToken", input.bytesPerToken);
  const beamWidth = positiveInteger("beamWidth", input.beamWidth ?? 1);
  return {
    deviceBytes,
    weightBytes,
    workspaceBytes,
    bytesPerToken,
    beamWidth,
    budgetBytes: deviceBytes - weightBytes - workspaceBytes,
  };
}

function doesNotFit(m: ReturnType<typeof normalise>, reason: DoesNotFitReason, cacheBytes: number): DoesNotFit {
  const requiredBytes = m.weightBytes + m.workspaceBytes + cacheBytes;
  return {
    fits: false,
    reason,
    budgetBytes: m.budgetBytes,
    requiredBytes,
    shortfallBytes: requiredBytes - m.deviceBytes,
  };
}

/** Memory left for the cache after weights and workspace. */
export function kvBudgetBytes(input: KvMemoryInput): number {
  return normalise(input).budgetBytes;
}

export interface SequencesFit {
  fits: true;
  budgetBytes: number;
  bytesPerSequence: number;
  /** floor(budget / (bytes per token × context × beam)) */
  sequences: number;
  /** Tokens the budget can hold in all (across sequences and beams). */
  maxResidentTokens: number;
}

/** How many sequences of a given context fit at once. */
export function sequencesThatFit(input: KvMemoryInput, contextTokens: number): SequencesFit | DoesNotFit {
  const m = normalise(input);
  positiveInteger("contextTokens", contextTokens);
  const bytesPerSequence = m.bytesPerToken * contextTokens * m.beamWidth;
  if (m.budgetBytes <= 0) return doesNotFit(m, "weights-fill-memory", bytesPerSequence);
  if (bytesPerSequence > m.budgetBytes) return doesNotFit(m, "one-sequence-exceeds-budget", bytesPerSequence);
  return {
    fits: true,
    budgetBytes: m.budgetBytes,
    bytesPerSequence,
    sequences: Math.floor(m.budgetBytes / bytesPerSequence),
    maxResidentTokens: Math.floor(m.budgetBytes / m.bytesPerToken),
  };
}

export interface ContextFit {
  fits: true;
  budgetBytes: number;
  /** floor(budget / (concurrency × bytes per token × beam)): the longest context every sequence can have. */
  contextTokens: number;
}

/** The longest context that fits when `concurrency` sequences are resident together. */
export function contextThatFits(input: KvMemoryInput, concurrency: number): ContextFit | DoesNotFit {
  const m = normalise(input);
  positiveInteger("concurrency", concurrency);
  const perTokenAcross = m.bytesPerToken * concurrency * m.beamWidth;
  if (m.budgetBytes <= 0) return doesNotFit(m, "weights-fill-memory", perTokenAcross);
  if (perTokenAcross > m.budgetBytes) return doesNotFit(m, "one-token-per-sequence-exceeds-budget", perTokenAcross);
  return { fits: true, budgetBytes: m.budgetBytes, contextTokens: Math.floor(m.budgetBytes / perTokenAcross) };
}

export interface RequestFit {
  fits: true;
  budgetBytes: number;
  requiredBytes: number;
  /** budget − cache needed */
  headroomBytes: number;
}

/** Does a given load (sequences × context × beam) fit? */
export function checkKvFit(input: KvMemoryInput, contextTokens: number, sequences: number): RequestFit | DoesNotFit {
  const m = normalise(input);
  nonNegativeInteger("contextTokens", contextTokens);
  nonNegativeInteger("sequences", sequences);
  const cacheBytes = m.bytesPerToken * contextTokens * sequences * m.beamWidth;
  if (!Number.isFinite(cacheBytes))
    throw new PlanningInputError("out_of_range", "sequences", "the cache size overflows");
  if (m.budgetBytes < 0) return doesNotFit(m, "weights-fill-memory", cacheBytes);
  if (cacheBytes > m.budgetBytes) return doesNotFit(m, "request-exceeds-budget", cacheBytes);
  return {
    fits: true,
    budgetBytes: m.budgetBytes,
    requiredBytes: m.weightBytes + m.workspaceBytes + cacheBytes,
    headroomBytes: m.budgetBytes - cacheBytes,
  };
}
