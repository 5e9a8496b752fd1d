import { openUnit, positive } from "./guards";

/**
 * The window rule of thumb (F-32): T_w ≤ fraction × L_SLO. The chapter's scenario reserves 30% of the SLO for
 * batching wait; another workload may pick another share after network, pre/post-processing and inference.
 */
export function maxWindowMs(sloMs: number, fraction = 0.3): number {
  positive("sloMs", sloMs);
  openUnit("fraction", fraction);
  return fraction * sloMs;
}
