// A batching sweep's temporary configuration for one (window, max batch) candidate: the running plan's instances
// and cores unchanged, the dispatcher's B set to the cap and its timeout to the window, and each instance's b the
// cap shared out (rounded up) so one dispatch of B rows runs in a single wave, as the batching model assumes.
import { sweepCandidateSchema, type SweepCandidate } from "@/contracts/batching-sweep-columns";
import type { ServingPlan } from "@/contracts/serving-plan";

export { sweepCandidateSchema, type SweepCandidate };

export const SWEEP_LIMITS = { maxCandidates: 8, minDurationS: 2, maxDurationS: 120, maxRatePerS: 100_000 } as const;

export function sweepPointPlan(base: ServingPlan, candidate: SweepCandidate): ServingPlan {
  const instances = base.instances.reduce((sum, item) => sum + item.count, 0);
  const perInstance = Math.ceil(candidate.maxBatch / instances);
  return {
    ...base,
    instances: base.instances.map((item) => ({ ...item, batch: perInstance })),
    batchSize: candidate.maxBatch,
    batchTimeoutMs: candidate.windowMs,
  };
}

export const describeCandidate = (c: SweepCandidate) => `T_w = ${c.windowMs} ms, B_max = ${c.maxBatch}`;
