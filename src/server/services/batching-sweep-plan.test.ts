import { describe, expect, it } from "vitest";
import { sweepPointPlan } from "./batching-sweep-plan";

describe("a sweep point's temporary plan", () => {
  const base = {
    instances: [
      { count: 2, threads: 2, batch: 4, cpus: ["0-1", "2-3"] },
      { count: 1, threads: 1, batch: 1, cpus: ["4"] },
    ],
    batchSize: 9,
    batchTimeoutMs: 5,
    warmupIterations: 3,
  };

  it("keeps the instances and their cores, sets B to the cap and the timeout to the window", () => {
    const plan = sweepPointPlan(base, { windowMs: 12, maxBatch: 32 });
    expect(plan.batchSize).toBe(32);
    expect(plan.batchTimeoutMs).toBe(12);
    expect(plan.instances.map((i) => [i.count, i.threads, i.cpus])).toEqual([
      [2, 2, ["0-1", "2-3"]],
      [1, 1, ["4"]],
    ]);
    // Three instances share a batch of 32: each takes up to ⌈32/3⌉ = 11, so one dispatch runs in one wave.
    expect(plan.instances.map((i) => i.batch)).toEqual([11, 11]);
    expect(plan.warmupIterations).toBe(3);
  });

  it("a cap of 1 gives every instance b = 1", () => {
    expect(sweepPointPlan(base, { windowMs: 0, maxBatch: 1 }).instances.map((i) => i.batch)).toEqual([1, 1]);
  });
});
