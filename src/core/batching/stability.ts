import { nonNegative, unitInterval } from "./guards";
import { batchThroughputPerS, type ServiceTimeModel } from "./service-time";

/**
 * Eq. 10's stability screen: a batch size is viable only if the saturated capacity μ_eff(B) = B/T(B) exceeds the
 * offered rate; otherwise the backlog diverges, whatever the latency arithmetic says.
 */

export interface StabilityScreen {
  /** μ_eff(B), derated by the efficiency factor when one is given. */
  capacityPerS: number;
  /** ρ = λ / capacity: queueing utilization, not fixed-cost share or duty cycle. */
  utilization: number;
  stable: boolean;
  /** min(λ, capacity) */
  throughputPerS: number;
}

export function stabilityScreen(
  model: ServiceTimeModel,
  arrivalRatePerS: number,
  batch: number,
  efficiency = 1,
): StabilityScreen {
  nonNegative("arrivalRatePerS", arrivalRatePerS);
  unitInterval("efficiency", efficiency);
  const capacityPerS = efficiency * batchThroughputPerS(model, batch);
  const utilization = capacityPerS > 0 ? arrivalRatePerS / capacityPerS : arrivalRatePerS > 0 ? 1 : 0;
  return {
    capacityPerS,
    utilization,
    stable: arrivalRatePerS < capacityPerS,
    throughputPerS: Math.min(arrivalRatePerS, capacityPerS),
  };
}

/**
 * Table 10's "illustrative saturated capacity": η_sched · B/T(B), with η = 0.89 standing in for scheduling gaps and
 * batches that dispatch before they fill (an assumed factor, not a measured one).
 */
export function deratedCapacityPerS(model: ServiceTimeModel, batch: number, efficiency = 0.89): number {
  unitInterval("efficiency", efficiency);
  return efficiency * batchThroughputPerS(model, batch);
}
