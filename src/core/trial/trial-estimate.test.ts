import { describe, expect, it } from "vitest";
import { estimateTrialMs } from "./trial-estimate";

describe("estimateTrialMs", () => {
  it("works the sum: start-up, then rounds × (settle + warm-up batch + max(round, m·p)) per plan", () => {
    // Plan A: p = 10 ms, 2 instances: start 2·(500 + 3·10) = 1060; rounds 4·(150 + 10 + max(1500, 30)) = 6640.
    // Plan B: p = 600 ms, 1 instance: start 500 + 1800 = 2300; rounds 4·(150 + 600 + max(1500, 1800)) = 10200.
    // Total 3000 + 1060 + 6640 + 2300 + 10200 = 23200.
    expect(
      estimateTrialMs({
        plans: [
          { predictedMs: 10, instances: 2 },
          { predictedMs: 600, instances: 1 },
        ],
        rounds: 4,
        roundMs: 1500,
        settleMs: 150,
        minBatchesPerTurn: 3,
        warmupIterations: 3,
      }),
    ).toBe(23200);
  });
  it("an unprofiled plan counts as the slowest known one; no plan is an error", () => {
    const a = estimateTrialMs({
      plans: [
        { predictedMs: 20, instances: 1 },
        { predictedMs: null, instances: 1 },
      ],
      rounds: 1,
      roundMs: 100,
      settleMs: 0,
      minBatchesPerTurn: 1,
      warmupIterations: 0,
      processStartMs: 0,
      sessionStartMs: 0,
    });
    expect(a).toBe(2 * (20 + 100));
    expect(() =>
      estimateTrialMs({ plans: [], rounds: 1, roundMs: 1, settleMs: 0, minBatchesPerTurn: 1, warmupIterations: 0 }),
    ).toThrow(/at least one/);
  });
});
