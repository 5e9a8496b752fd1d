import { PlanningInputError } from "../planning/errors";
import { nonNegative, positive } from "./guards";

/**
 * The memory ceiling on batch size (§13.5.4 guidelines): what is left of device memory after the weights and the
 * runtime workspace, divided by the activation footprint of one sample.
 */
export interface MemoryCapInput {
  memoryBytes: number;
  weightBytes: number;
  workspaceBytes?: number;
  activationBytesPerSample: number;
}

export interface MemoryCap {
  /** Bytes left for activations; negative means the weights and workspace alone do not fit. */
  freeBytes: number;
  /** floor(freeBytes / activation bytes per sample); 0 when nothing fits. */
  maxBatch: number;
}

export function memoryCap(input: MemoryCapInput): MemoryCap {
  positive("memoryBytes", input.memoryBytes);
  nonNegative("weightBytes", input.weightBytes);
  const workspace = nonNegative("workspaceBytes", input.workspaceBytes ?? 0);
  positive("activationBytesPerSample", input.activationBytesPerSample);
  const freeBytes = input.memoryBytes - input.weightBytes - workspace;
  const maxBatch = freeBytes > 0 ? Math.floor(freeBytes / input.activationBytesPerSample) : 0;
  if (!Number.isSafeInteger(maxBatch)) {
    throw new PlanningInputError(
      "out_of_range",
      "activationBytesPerSample",
      "is too small: the cap is not a usable integer",
    );
  }
  return { freeBytes, maxBatch };
}
