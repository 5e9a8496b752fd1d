import { nonNegative, nonNegativeInteger, positive, positiveInteger } from "../batching/guards";

/**
 * Decode is bandwidth bound: each step streams the weights once (shared by the batch) plus every sequence's KV cache
 * (not shared). Eq. 14's floor t_tok ≈ D / BW, extended by F-56 with the batch's cache reads. Times in ms.
 */

/** D / BW in ms: the decode floor for a step that reads `bytesPerStep` (Eq. 14; assumes one captured graph). */
export function decodeFloorMs(bytesPerStep: number, bandwidthBytesPerS: number): number {
  positive("bytesPerStep", bytesPerStep);
  positive("bandwidthBytesPerS", bandwidthBytesPerS);
  return (bytesPerStep / bandwidthBytesPerS) * 1000;
}

export interface DecodeStepInput {
  weightBytes: number;
  kvBytesPerToken: number;
  contextTokens: number;
  batch: number;
  bandwidthBytesPerS: number;
}

export interface DecodeStep {
  batch: number;
  /** W + B × kv × context */
  bytesPerStep: number;
  /** = TPOT for every sequence in the batch */
  stepMs: number;
  /** B / step: aggregate tokens per second */
  tokensPerS: number;
  /** Share of the step's bytes that are cache reads. */
  cacheShare: number;
}

export function decodeStep(input: DecodeStepInput): DecodeStep {
  nonNegative("weightBytes", input.weightBytes);
  nonNegative("kvBytesPerToken", input.kvBytesPerToken);
  nonNegativeInteger("contextTokens", input.contextTokens);
  const batch = positiveInteger("batch", input.batch);
  const cacheBytes = batch * input.kvBytesPerToken * input.contextTokens;
  const bytesPerStep = input.weightBytes + cacheBytes;
  const stepMs = decodeFloorMs(bytesPerStep, input.bandwidthBytesPerS);
  return { batch, bytesPerStep, stepMs, tokensPerS: (batch / stepMs) * 1000, cacheShare: cacheBytes / bytesPerStep };
}

/** TPOT and aggregate tokens/s across batch sizes (CH-21). */
export function decodeSweep(input: Omit<DecodeStepInput, "batch">, batches: readonly number[]): DecodeStep[] {
  return batches.map((batch) => decodeStep({ ...input, batch }));
}

/** tokens/s = 1000 / TPOT_ms (per sequence). */
export function tokensPerSFromTpot(tpotMs: number): number {
  return 1000 / positive("tpotMs", tpotMs);
}

/** Host time to submit an eager step: kernels × per-kernel launch cost (15 μs = 10 μs Python + 5 μs driver). */
export function eagerSubmissionMs(kernels: number, perKernelUs = 15): number {
  nonNegativeInteger("kernels", kernels);
  nonNegative("perKernelUs", perKernelUs);
  return (kernels * perKernelUs) / 1000;
}

/** FLOP per byte of weight traffic at a decode batch: 2·P·B / W (≈ 1 at batch 1 for FP16 weights). */
export function decodeWeightIntensity(parameters: number, weightBytes: number, batch = 1): number {
  positive("parameters", parameters);
  positive("weightBytes", weightBytes);
  positiveInteger("batch", batch);
  return (2 * parameters * batch) / weightBytes;
}

/** Peak FLOP/s ÷ bandwidth: the intensity below which a kernel is bandwidth bound (H100 FP16: 295 FLOP/byte). */
export function ridgePoint(peakFlopsPerS: number, bandwidthBytesPerS: number): number {
  return positive("peakFlopsPerS", peakFlopsPerS) / positive("bandwidthBytesPerS", bandwidthBytesPerS);
}
