import { describe, expect, it } from "vitest";
import { validateProfile } from "../profile/profile";
import { allThreadsShape, computeBaselines, oneThreadShape, profileLatencyLookup } from "./baselines";
import { P1 } from "./fixtures/digest-profiles";

describe("baseline shapes", () => {
  it("⟨1, T, B⟩ is one instance with every thread", () => {
    expect(allThreadsShape(16, 100)).toEqual([{ count: 1, threads: 16, batch: 100 }]);
  });
  it("T = 16, B = 100: k = 16, q = ⌊100/16⌋ = 6, r = 100 − 96 = 4 → 12 × b6 + 4 × b7 (72 + 28 = 100)", () => {
    expect(oneThreadShape(16, 100)).toEqual([
      { count: 12, threads: 1, batch: 6 },
      { count: 4, threads: 1, batch: 7 },
    ]);
  });
  it("B < T: k = B = 5 instances of b = 1", () => {
    expect(oneThreadShape(16, 5)).toEqual([{ count: 5, threads: 1, batch: 1 }]);
  });
  it("B = 64, T = 16: an even split, 16 × b4", () => {
    expect(oneThreadShape(16, 64)).toEqual([{ count: 16, threads: 1, batch: 4 }]);
  });
});

describe("computeBaselines on digest P1", () => {
  const p1 = validateProfile(P1);
  it("P1 T=4, B=4: ⟨1,4,4⟩ = 13 → 1.3× slower than the optimum 10; 4 × ⟨1,1⟩ = 10 → 1.0×", () => {
    const { allThreads, oneThread } = computeBaselines(p1, 4, 4, 10);
    expect(allThreads).toMatchObject({ available: true, latencyMs: 13, speedup: 1.3 });
    // Throughput 1000 · 4 / 13 ≈ 307.69 samples/s.
    expect(allThreads.available && allThreads.throughputPerS).toBeCloseTo(307.692, 3);
    expect(oneThread).toMatchObject({ available: true, latencyMs: 10, speedup: 1, throughputPerS: 400 });
  });
  it("P1 T=4, B=3: ⟨4,3⟩ was not profiled → unavailable, naming the cell; 3 × ⟨1,1⟩ = 10", () => {
    const { allThreads, oneThread } = computeBaselines(p1, 4, 3, 10);
    expect(allThreads).toEqual({ available: false, missing: [[4, 3]] });
    expect(oneThread).toMatchObject({ available: true, latencyMs: 10 });
  });
  it("P1 T=2, B=6: both unavailable (⟨2,6⟩; k = 2, q = 3 → ⟨1,3⟩)", () => {
    expect(computeBaselines(p1, 2, 6, 19)).toEqual({
      allThreads: { available: false, missing: [[2, 6]] },
      oneThread: { available: false, missing: [[1, 3]] },
    });
  });
  it("a mixed split takes the slower cell: T=2, B=3 → ⟨1,1⟩ = 10 and ⟨1,2⟩ = 19 → 19", () => {
    expect(computeBaselines(p1, 2, 3, 10).oneThread).toMatchObject({ available: true, latencyMs: 19, speedup: 1.9 });
  });
  it("the lookup answers undefined for an unprofiled cell", () => {
    const lookup = profileLatencyLookup(p1);
    expect(lookup(3, 2)).toBe(8.5);
    expect(lookup(3, 3)).toBeUndefined();
  });
});
