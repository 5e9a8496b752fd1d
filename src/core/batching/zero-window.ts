import { nonNegativeInteger, openUnit, positive } from "./guards";
import { serviceTimeMs, type ServiceTimeModel } from "./service-time";

/**
 * When the right batching window is zero (F-36): an ultra-low latency target, variable-length inputs on a runtime
 * without ragged tensors (padding waste), or weights that leave memory for only one request. A zero window still
 * lets requests wait for a busy worker; it only removes deliberate formation delay.
 */

export type ZeroWindowReason =
  "ultra-low-latency-target" | "padding-without-ragged-tensors" | "memory-fits-one-request";

export interface ZeroWindowInput {
  model: ServiceTimeModel;
  sloMs: number;
  /** Share of the SLO a window may take; default 0.3. */
  windowFraction?: number;
  variableLengthInputs?: boolean;
  raggedTensorSupport?: boolean;
  /** Largest batch memory allows, when known. */
  memoryCapBatch?: number;
}

export interface ZeroWindowAdvice {
  zeroWindow: boolean;
  reasons: Array<{ reason: ZeroWindowReason; detail: string }>;
}

export function zeroWindowAdvice(input: ZeroWindowInput): ZeroWindowAdvice {
  positive("sloMs", input.sloMs);
  const fraction = openUnit("windowFraction", input.windowFraction ?? 0.3);
  const reasons: ZeroWindowAdvice["reasons"] = [];
  const single = serviceTimeMs(input.model, 1);
  const allowance = fraction * input.sloMs;
  // The chapter gives no number for "ultra-low"; we call it that when the window allowance is shorter than one
  // batch-1 forward pass, so any window would cost more than the work it batches.
  if (allowance < single) {
    reasons.push({
      reason: "ultra-low-latency-target",
      detail: `window allowance ${allowance.toFixed(3)} ms (${fraction} × ${input.sloMs} ms) < T(1) = ${single.toFixed(3)} ms`,
    });
  }
  if (input.variableLengthInputs === true && input.raggedTensorSupport !== true) {
    reasons.push({
      reason: "padding-without-ragged-tensors",
      detail: "variable-length inputs on a runtime without ragged tensors pad every item to the longest",
    });
  }
  if (input.memoryCapBatch !== undefined && nonNegativeInteger("memoryCapBatch", input.memoryCapBatch) < 2) {
    reasons.push({
      reason: "memory-fits-one-request",
      detail: `memory allows a batch of ${input.memoryCapBatch}: batching risks out-of-memory aborts`,
    });
  }
  return { zeroWindow: reasons.length > 0, reasons };
}
