import { describe, expect, it } from "vitest";
import { syntheticTopology } from "../topology/synthetic-topology";
import { allocate } from "./allocate";
import { diffAllocations } from "./diff-allocations";

// 1 socket × 2 cores: CPUs 0 and 1.
const small = syntheticTopology({ sockets: 1, coresPerNode: 2 });
// 2 sockets × 4 cores: socket 0 = CPUs 0–3, socket 1 = CPUs 4–7.
const twoByFour = syntheticTopology({ sockets: 2, coresPerNode: 4 });

describe("diffAllocations", () => {
  it("⟨1×2⟩ → ⟨2×1⟩ on 2 cores: the 2-thread instance stops, two 1-thread ones start, each on one of its CPUs", () => {
    const before = allocate(small, [{ count: 1, threads: 2, batch: 8 }]).instances; // [0,1]
    const after = allocate(small, [{ count: 2, threads: 1, batch: 4 }]).instances; // [0], [1]
    expect(diffAllocations(before, after)).toEqual({
      stay: [],
      start: [
        { to: 0, threads: 1, cpus: [0], sharesWith: [{ from: 0, cpus: [0] }] },
        { to: 1, threads: 1, cpus: [1], sharesWith: [{ from: 0, cpus: [1] }] },
      ],
      stop: [{ from: 0, threads: 2, cpus: [0, 1] }],
      sharedCpus: [0, 1],
      unchanged: false,
    });
  });

  it("⟨2×2⟩ → ⟨3×2⟩ (worker scaling): both instances stay, one starts on free cores and shares nothing", () => {
    // Interleave: ⟨2×2⟩ = [0,1], [4,5]; ⟨3×2⟩ = [0,1], [4,5], [2,3].
    const before = allocate(twoByFour, [{ count: 2, threads: 2, batch: 4 }]).instances;
    const after = allocate(twoByFour, [{ count: 3, threads: 2, batch: 2 }]).instances;
    const diff = diffAllocations(before, after);
    expect(diff.stay).toEqual([
      { from: 0, to: 0, cpus: [0, 1], batchBefore: 4, batchAfter: 2 },
      { from: 1, to: 1, cpus: [4, 5], batchBefore: 4, batchAfter: 2 },
    ]);
    expect(diff.start).toEqual([{ to: 2, threads: 2, cpus: [2, 3], sharesWith: [] }]);
    expect(diff).toMatchObject({ stop: [], sharedCpus: [], unchanged: false });
  });

  it("the same plan with a new batch is unchanged; same CPUs with other thread counts is not a stay", () => {
    const a = allocate(twoByFour, [{ count: 2, threads: 2, batch: 4 }]).instances;
    const b = allocate(twoByFour, [{ count: 2, threads: 2, batch: 8 }]).instances;
    expect(diffAllocations(a, b).unchanged).toBe(true);
    const diff = diffAllocations([{ threads: 2, batch: 1, cpus: [0, 1] }], [{ threads: 1, batch: 1, cpus: [1, 0] }]);
    expect(diff.stay).toEqual([]);
    expect(diff.sharedCpus).toEqual([0, 1]);
  });
});
