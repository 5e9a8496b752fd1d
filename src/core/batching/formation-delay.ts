import { PlanningInputError } from "../planning/errors";
import { nonNegative, positive } from "./guards";
import { serviceTimeMs, type ServiceTimeModel } from "./service-time";

/**
 * How long requests wait for a batch to form. Eq. 6 is a count-triggered batcher (dispatch at exactly B requests);
 * Eq. 8 a fixed calendar window. Times in ms, rates in requests per second.
 */

/** (B − 1)/(2λ): mean formation delay of a count-triggered batch under Poisson arrivals (Eq. 6). */
export function countTriggeredFormationDelayMs(batch: number, arrivalRatePerS: number): number {
  positive("batch", batch);
  nonNegative("arrivalRatePerS", arrivalRatePerS);
  if (batch <= 1) return 0;
  // "Diverges under light traffic": with no arrivals a batch of more than one never forms.
  if (arrivalRatePerS === 0) {
    throw new PlanningInputError("infeasible", "arrivalRatePerS", "is 0, so a batch larger than 1 never forms");
  }
  return ((batch - 1) / (2 * arrivalRatePerS)) * 1000;
}

/** T_batch ≈ (B − 1)/(2λ) + T(B), assuming an idle worker as soon as the batch is full (Eq. 6). */
export function countTriggeredLatencyMs(model: ServiceTimeModel, batch: number, arrivalRatePerS: number): number {
  return countTriggeredFormationDelayMs(batch, arrivalRatePerS) + serviceTimeMs(model, batch);
}

/** Wait inside a fixed window T_w with Poisson arrivals and an idle worker at the boundary (Eq. 8). */
export function windowWaitMs(windowMs: number): { meanMs: number; maxMs: number } {
  nonNegative("windowMs", windowMs);
  // An arrival at offset τ waits T_w − τ; τ is uniform on [0, T_w], so the mean is T_w/2 and the first arrival waits T_w.
  return { meanMs: windowMs / 2, maxMs: windowMs };
}
