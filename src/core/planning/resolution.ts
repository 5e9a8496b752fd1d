/**
 * Input-resolution what-ifs (F-06, F-07; Eq. 1 and Table 6): how throughput and arithmetic intensity move with the
 * image side length for a convolution-dominated, compute-bound model. First-order estimates: FLOPs and activation
 * bytes scale with pixel count (r²); weights do not.
 */
import { requirePositive } from "./errors";

/** Eq. 1: throughput(r₂) / throughput(r₁) = (r₁ / r₂)². 224 → 448 px gives 0.25, a 4× compute estimate. */
export function resolutionThroughputRatio(input: { fromResolutionPx: number; toResolutionPx: number }): number {
  const from = requirePositive("fromResolutionPx", input.fromResolutionPx);
  const to = requirePositive("toResolutionPx", input.toResolutionPx);
  return (from / to) ** 2;
}

export interface ResolutionModel {
  baseResolutionPx: number;
  /** FLOPs of one forward pass at the base resolution. */
  flopsAtBase: number;
  /** Weight bytes read once per pass (independent of resolution). */
  weightBytes: number;
  /** Activation footprint at the base resolution; it is written once and read once per pass. */
  activationBytesAtBase: number;
}

/** The chapter's ResNet-50 FP32 reference for Table 6: 8.2 GFLOP, 102.4 MB weights, 12.5 MB activations at 224 px. */
export const RESNET50_FP32_AT_224: ResolutionModel = {
  baseResolutionPx: 224,
  flopsAtBase: 8.2e9,
  weightBytes: 102.4e6,
  activationBytesAtBase: 12.5e6,
};

export interface ResolutionIntensity {
  flops: number;
  activationBytes: number;
  /** Weights once + activations written and read: W + 2·A(r). */
  bytesMoved: number;
  intensityFlopPerByte: number;
}

/**
 * F-07: I(r) = O·s / (W + 2·A·s) with s = (r / r₀)². It omits intermediate-tensor, cache and workspace traffic,
 * as the chapter says, so it is an upper bound on the intensity a profile will show.
 */
export function arithmeticIntensityAtResolution(input: {
  resolutionPx: number;
  model?: ResolutionModel;
}): ResolutionIntensity {
  const r = requirePositive("resolutionPx", input.resolutionPx);
  const m = input.model ?? RESNET50_FP32_AT_224;
  requirePositive("model.baseResolutionPx", m.baseResolutionPx);
  requirePositive("model.flopsAtBase", m.flopsAtBase);
  requirePositive("model.weightBytes", m.weightBytes);
  requirePositive("model.activationBytesAtBase", m.activationBytesAtBase);
  const scale = (r / m.baseResolutionPx) ** 2;
  const flops = m.flopsAtBase * scale;
  const activationBytes = m.activationBytesAtBase * scale;
  const bytesMoved = m.weightBytes + 2 * activationBytes;
  return { flops, activationBytes, bytesMoved, intensityFlopPerByte: flops / bytesMoved };
}
