import { describe, expect, it } from "vitest";
import { validateProfile } from "../profile/profile";
import { enumeratePlans, exhaustiveOptimize } from "./exhaustive-search";
import { P1, P2 } from "./fixtures/digest-profiles";

const p1 = validateProfile(P1);

describe("enumeratePlans", () => {
  it("Packrat DP P1 T=4, B=2: 3 feasible multisets with Σt = 4: ⟨4,2⟩, {⟨1,1⟩, ⟨3,1⟩}, {⟨2,1⟩×2}", () => {
    const plans = enumeratePlans(p1, 4, 2, true);
    expect(plans.map((plan) => plan.cells)).toEqual([
      [
        [1, 1],
        [3, 1],
      ],
      [
        [2, 1],
        [2, 1],
      ],
      [[4, 2]],
    ]);
    // Makespans: max(10, 4.8) = 10, max(6, 6) = 6, 7.2.
    expect(plans.map((plan) => plan.latencyMs)).toEqual([10, 6, 7.2]);
  });
  it("with Σt ≤ 4 adds the idle-core plans: 4 singles ⟨t,2⟩ and pairs (1,1), (1,2), (1,3), (2,2) → 8", () => {
    expect(enumeratePlans(p1, 4, 2, false)).toHaveLength(8);
  });
});

describe("exhaustiveOptimize", () => {
  it("Packrat DP P1 T=4, B=3: tie at 10 between {⟨1,1⟩, ⟨3,2⟩} and {⟨1,1⟩×2, ⟨2,1⟩}: fewer instances wins", () => {
    expect(exhaustiveOptimize(p1, { cores: 4, batch: 3 })).toEqual({
      latencyMs: 10,
      cells: [
        [1, 1],
        [3, 2],
      ],
    });
  });
  it("Packrat DP P2 T=6, B=6: 4-way tie at 10, {⟨2,2⟩×3} has the fewest instances", () => {
    expect(exhaustiveOptimize(validateProfile(P2), { cores: 6, batch: 6, exactCores: true })).toEqual({
      latencyMs: 10,
      cells: [
        [2, 2],
        [2, 2],
        [2, 2],
      ],
    });
  });
  it("is undefined when nothing fills the knapsack (b = 3 needs an odd size)", () => {
    expect(
      exhaustiveOptimize(validateProfile([{ threads: 1, batch: 2, latencyMs: 1 }]), { cores: 4, batch: 3 }),
    ).toBeUndefined();
  });
});
