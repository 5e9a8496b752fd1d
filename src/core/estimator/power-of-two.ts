import { EstimatorError } from "./errors";

/**
 * B̂ = 2^⌊log2 q⌋, the power of two at or below q; 1 when q < 1 (an idle queue still serves batches of one).
 * Doubling instead of Math.log2 keeps exact powers exact (log2 of 2^k can land a hair under k in floating point).
 */
export function floorPowerOfTwo(q: number): number {
  if (!Number.isFinite(q)) throw new EstimatorError("invalid-sample", "q", `must be finite, got ${q}`);
  let p = 1;
  while (p * 2 <= q) p *= 2;
  return p;
}
