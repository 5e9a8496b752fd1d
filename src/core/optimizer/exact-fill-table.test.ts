import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateProfile, type ProfileCell } from "../profile/profile";
import { buildExactFillTable, exactFillLatency, optimumRank } from "./exact-fill-table";
import { arbitraryCase } from "./fixtures/arbitrary-profiles";
import { P1 } from "./fixtures/digest-profiles";
import { naiveExactFillTable } from "./naive-oracle";
import { buildItems } from "./profile-items";

function bothTables(cells: readonly ProfileCell[], cores: number, maxBatch: number) {
  const profile = validateProfile(cells);
  return {
    fast: buildExactFillTable(buildItems(profile, cores, maxBatch)),
    naive: naiveExactFillTable(profile, cores, maxBatch),
  };
}

function expectSameTables(cells: readonly ProfileCell[], cores: number, maxBatch: number): void {
  const { fast, naive } = bothTables(cells, cores, maxBatch);
  for (let t = 1; t <= cores; t++) {
    for (let b = 1; b <= maxBatch; b++)
      expect([t, b, exactFillLatency(fast, t, b)]).toEqual([t, b, naive.latency(t, b)]);
  }
}

describe("buildExactFillTable", () => {
  it("digest P1, T=4, B=4: the worked cells", () => {
    const { fast } = bothTables(P1, 4, 4);
    // Row t = 4 (digest table): B=1 → ⟨4,1⟩ 4.2; B=2 → {⟨2,1⟩×2} 6; B=3 → 10; B=4 → {⟨1,1⟩×4} 10.
    expect([1, 2, 3, 4].map((b) => exactFillLatency(fast, 4, b))).toEqual([4.2, 6, 10, 10]);
    // opt₌[3][4] = L[3][4] = 16: the splits of 3 threads are ≥ max(19, 11) = 19 or need b = 3.
    expect(exactFillLatency(fast, 3, 4)).toBe(16);
    // opt₌[2][4] = 19 (⟨1,2⟩×2) beats L[2][4] = 21.
    expect(exactFillLatency(fast, 2, 4)).toBe(19);
    expect(exactFillLatency(fast, 1, 3)).toBeUndefined();
  });

  it("optimumRank: with exactCores the cell ⟨T, B⟩, else the best row t ≤ T", () => {
    // P1 B = 1: opt₌[t][1] = L[t][1] = 10, 6, 4.8, 4.2; T = 4 gives 4.2 either way.
    const { fast } = bothTables(P1, 4, 4);
    expect(fast.values[optimumRank(fast, 4, 1, true)]).toBe(4.2);
    expect(fast.values[optimumRank(fast, 4, 1, false)]).toBe(4.2);
    // A profile where more threads are slower: exact T = 2 must take ⟨2,1⟩ = 9, Σt ≤ 2 takes ⟨1,1⟩ = 3.
    const slow = bothTables(
      [
        { threads: 1, batch: 1, latencyMs: 3 },
        { threads: 2, batch: 1, latencyMs: 9 },
      ],
      2,
      1,
    ).fast;
    expect(slow.values[optimumRank(slow, 2, 1, true)]).toBe(9);
    expect(slow.values[optimumRank(slow, 2, 1, false)]).toBe(3);
    expect(optimumRank(slow, 2, 1, true)).toBeGreaterThan(optimumRank(slow, 2, 1, false));
  });

  it("equals the naive O(T²B²) recurrence on random profiles, T ≤ 6, B ≤ 24", () => {
    fc.assert(
      fc.property(arbitraryCase, ({ cores, batch, cells }) => expectSameTables(cells, cores, batch)),
      { numRuns: 200 },
    );
  });

  it("equals the naive recurrence across 32-bit word boundaries (B up to 100, sizes 1…70)", () => {
    const wide = fc.record({
      cores: fc.integer({ min: 1, max: 3 }),
      batch: fc.integer({ min: 30, max: 100 }),
      cells: fc.uniqueArray(
        fc.record({
          threads: fc.integer({ min: 1, max: 3 }),
          batch: fc.oneof(fc.integer({ min: 1, max: 70 }), fc.constantFrom(1, 31, 32, 33, 63, 64, 65)),
          latencyMs: fc.integer({ min: 1, max: 9 }),
        }),
        { selector: (cell) => `${cell.threads},${cell.batch}`, minLength: 1, maxLength: 12 },
      ),
    });
    fc.assert(
      fc.property(wide, ({ cores, batch, cells }) => expectSameTables(cells, cores, batch)),
      { numRuns: 100 },
    );
  });

  it("B = 31, 32, 63, 64 (the last word full or one bit): b = 1 alone at t = 1 only fills b = 1", () => {
    for (const maxBatch of [31, 32, 63, 64]) {
      const { fast } = bothTables([{ threads: 1, batch: 1, latencyMs: 2 }], 2, maxBatch);
      expect(exactFillLatency(fast, 1, 1)).toBe(2);
      expect(exactFillLatency(fast, 2, 2)).toBe(2);
      expect(exactFillLatency(fast, 2, 3)).toBeUndefined();
      expect(exactFillLatency(fast, 1, maxBatch)).toBeUndefined();
    }
  });
});
