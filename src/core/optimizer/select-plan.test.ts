import { describe, expect, it } from "vitest";
import { validateProfile, type ProfileCell } from "../profile/profile";
import { P2 } from "./fixtures/digest-profiles";
import { buildItems, type ItemSet } from "./profile-items";
import { selectPlan } from "./select-plan";

function cellsOf(items: ItemSet, chosen: readonly number[]): Array<[number, number]> {
  return chosen.map((i) => [items.threads[i] ?? 0, items.batch[i] ?? 0]);
}

function select(cells: ProfileCell[], cores: number, batch: number, exactCores: boolean, maxLatency: number) {
  const items = buildItems(validateProfile(cells), cores, batch);
  const maxRank = items.values.findLastIndex((value) => value <= maxLatency);
  const plan = selectPlan(items, cores, batch, exactCores, maxRank);
  return plan === undefined ? undefined : { cells: cellsOf(items, plan.items), threadsUsed: plan.threadsUsed };
}

describe("selectPlan (phase 2: ties)", () => {
  it("Packrat DP P2 T=6, B=6: of the 4-way tie at 10, the fewest instances: {⟨2,2⟩×3}", () => {
    // Tied: {⟨1,1⟩×6} (6 instances), {⟨1,1⟩×4, ⟨2,2⟩} (5), {⟨1,1⟩×2, ⟨2,2⟩×2} (4), {⟨2,2⟩×3} (3).
    expect(select(P2, 6, 6, true, 10)).toEqual({
      cells: [
        [2, 2],
        [2, 2],
        [2, 2],
      ],
      threadsUsed: 6,
    });
  });

  it("then the fewest threads: ⟨1,2⟩ and ⟨2,2⟩ both take 5 ms; Σt ≤ 2 keeps one core idle", () => {
    const cells = [
      { threads: 1, batch: 2, latencyMs: 5 },
      { threads: 2, batch: 2, latencyMs: 5 },
    ];
    expect(select(cells, 2, 2, false, 5)).toEqual({ cells: [[1, 2]], threadsUsed: 1 });
    // With exactCores the thread count is fixed at T = 2.
    expect(select(cells, 2, 2, true, 5)).toEqual({ cells: [[2, 2]], threadsUsed: 2 });
  });

  it("then the lexicographically smallest sorted list: [⟨1,1⟩, ⟨3,3⟩] < [⟨2,2⟩, ⟨2,2⟩]", () => {
    // Both: 2 instances, Σt = 4, Σb = 4, makespan 5. Compare first elements: ⟨1,1⟩ < ⟨2,2⟩.
    // (Choosing the smallest LAST element instead would give {⟨2,2⟩×2}: this case tells the two rules apart.)
    const cells = [
      { threads: 1, batch: 1, latencyMs: 5 },
      { threads: 2, batch: 2, latencyMs: 5 },
      { threads: 3, batch: 3, latencyMs: 5 },
    ];
    expect(select(cells, 4, 4, true, 5)).toEqual({
      cells: [
        [1, 1],
        [3, 3],
      ],
      threadsUsed: 4,
    });
    expect(select(cells, 4, 4, false, 5)).toEqual({
      cells: [
        [1, 1],
        [3, 3],
      ],
      threadsUsed: 4,
    });
  });

  it("only uses items within the bound: P2 T=6, B=6 with bound 9.99 has no plan", () => {
    // Every fill of B = 6 needs an instance ≥ 10 ms (the optimum is 10).
    expect(select(P2, 6, 6, true, 9.99)).toBeUndefined();
  });

  it("Σt ≤ T drops slower-or-equal cells with more threads for the same b, without changing the answer", () => {
    // b = 1: ⟨1,1⟩ = 4 and ⟨2,1⟩ = 4; bound 4; B = 2, T = 4: {⟨1,1⟩×2}, 2 threads, 2 idle.
    const cells = [
      { threads: 1, batch: 1, latencyMs: 4 },
      { threads: 2, batch: 1, latencyMs: 4 },
    ];
    expect(select(cells, 4, 2, false, 4)).toEqual({
      cells: [
        [1, 1],
        [1, 1],
      ],
      threadsUsed: 2,
    });
    // Exact: Σt = 4 over two b = 1 instances → ⟨2,1⟩×2 (⟨1,1⟩ + ⟨3,1⟩ is not profiled).
    expect(select(cells, 4, 2, true, 4)).toEqual({
      cells: [
        [2, 1],
        [2, 1],
      ],
      threadsUsed: 4,
    });
  });
});
