import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packLocal, type PackDomain } from "./pack-local";

/** Tries every assignment of instances to domains: the ground truth for small cases. */
function bruteForceFits(sizes: number[], domains: PackDomain[]): boolean {
  const free = domains.map((d) => d.free);
  const go = (k: number): boolean => {
    if (k === sizes.length) return true;
    for (let d = 0; d < free.length; d++) {
      if (free[d]! >= sizes[k]!) {
        free[d]! -= sizes[k]!;
        const ok = go(k + 1);
        free[d]! += sizes[k]!;
        if (ok) return true;
      }
    }
    return false;
  };
  return go(0);
}

function respectsCapacity(sizes: number[], domains: PackDomain[], placed: number[]): boolean {
  const used = domains.map(() => 0);
  placed.forEach((d, k) => (used[d]! += sizes[k]!));
  return used.every((u, d) => u <= domains[d]!.free);
}

const twoSockets: PackDomain[] = [
  { socket: 0, free: 8 },
  { socket: 1, free: 8 },
];

describe("packLocal", () => {
  it("interleave: four equal instances alternate sockets 0, 1, 0, 1", () => {
    expect(packLocal([2, 2, 2, 2], twoSockets, "interleave")).toEqual([0, 1, 0, 1]);
  });
  it("sequential: four 2-core instances fill socket 0 (8 cores) first", () => {
    expect(packLocal([2, 2, 2, 2], twoSockets, "sequential")).toEqual([0, 0, 0, 0]);
  });
  it("interleave also rotates over the NUMA nodes inside a socket", () => {
    const nodes: PackDomain[] = [
      { socket: 0, free: 4 },
      { socket: 0, free: 4 },
      { socket: 1, free: 4 },
      { socket: 1, free: 4 },
    ];
    // Sockets alternate 0,1,0,1; inside socket 0 nodes go 0 then 1, inside socket 1 nodes 2 then 3.
    expect(packLocal([1, 1, 1, 1], nodes, "interleave")).toEqual([0, 2, 1, 3]);
  });
  it("places the largest first: 8 and 4 on two 8-core sockets → 8 on socket 0, 4 on socket 1", () => {
    expect(packLocal([4, 8], twoSockets, "interleave")).toEqual([1, 0]);
  });
  it("falls back to an exact search where round-robin strands cores: free 6 + 4, instances 3,3,2,2", () => {
    // Round-robin puts 3 → s0 (3 left), 3 → s1 (1 left), 2 → s0 (1 left) and then nothing holds the last 2.
    // The only fit is 3 + 3 on the 6-core domain and 2 + 2 on the 4-core one.
    const domains: PackDomain[] = [
      { socket: 0, free: 6 },
      { socket: 1, free: 4 },
    ];
    expect(packLocal([3, 3, 2, 2], domains, "interleave")).toEqual([0, 0, 1, 1]);
  });
  it("returns null when no domain holds an instance: 9 cores on 8-core sockets", () => {
    expect(packLocal([9], twoSockets, "interleave")).toBeNull();
  });
  it("agrees with brute force on whether a fit exists, and never overfills (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ socket: fc.integer({ min: 0, max: 1 }), free: fc.integer({ min: 0, max: 6 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        fc.array(fc.integer({ min: 1, max: 6 }), { minLength: 1, maxLength: 6 }),
        fc.constantFrom("interleave" as const, "sequential" as const),
        (domains, sizes, order) => {
          const placed = packLocal(sizes, domains, order);
          expect(placed !== null).toBe(bruteForceFits(sizes, domains));
          if (placed) expect(respectsCapacity(sizes, domains, placed)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
