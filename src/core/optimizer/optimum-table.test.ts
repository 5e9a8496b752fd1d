import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OptimizerInputError } from "./errors";
import { arbitraryProfile } from "./fixtures/arbitrary-profiles";
import { P1 } from "./fixtures/digest-profiles";
import { optimize } from "./optimize";
import { optimumTable } from "./optimum-table";

describe("optimumTable", () => {
  it("digest P1, T = 4, B = 1…8", () => {
    const rows = optimumTable(P1, { cores: 4, maxBatch: 8 }).rows;
    expect(rows.map((row) => row.batch)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // B = 1…4 from the digest: 4.2, 6, 10, 10. B = 8: four ⟨1,2⟩ = 19 beats {⟨2,4⟩×2} = 21 and anything with ⟨·,4⟩
    // on one thread (37).
    expect(rows.slice(0, 4).map((row) => row.latencyMs)).toEqual([4.2, 6, 10, 10]);
    expect(rows[7]).toEqual({
      batch: 8,
      latencyMs: 19,
      throughputPerS: (1000 * 8) / 19,
      allThreadsMs: null,
      oneThreadMs: 19,
    });
    // Baselines: ⟨4,B⟩ exists for B = 1, 2, 4 only (13 at B = 4); one-thread B = 3 → 3 × ⟨1,1⟩ = 10.
    expect(rows.map((row) => row.allThreadsMs)).toEqual([4.2, 7.2, null, 13, null, null, null, null]);
    expect(rows[2]?.oneThreadMs).toBe(10);
  });

  it("marks an infeasible B with null, never Infinity: only b = 2 profiled → odd B impossible", () => {
    const rows = optimumTable([{ threads: 1, batch: 2, latencyMs: 3 }], { cores: 2, maxBatch: 4 }).rows;
    expect(rows.map((row) => row.latencyMs)).toEqual([null, 3, null, 3]);
    expect(rows[0]?.throughputPerS).toBeNull();
  });

  it("agrees with optimize() at every B, both modes (one table, many answers)", () => {
    fc.assert(
      fc.property(arbitraryProfile, fc.integer({ min: 1, max: 6 }), fc.boolean(), (cells, cores, exactCores) => {
        const table = optimumTable(cells, { cores, maxBatch: 20, exactCores });
        for (const row of table.rows) {
          const result = optimize(cells, { cores, batch: row.batch, exactCores });
          expect(row.latencyMs).toBe(result.kind === "plan" ? result.latencyMs : null);
          if (result.kind !== "plan") continue;
          const { allThreads, oneThread } = result.baselines;
          expect(row.allThreadsMs).toBe(allThreads.available ? allThreads.latencyMs : null);
          expect(row.oneThreadMs).toBe(oneThread.available ? oneThread.latencyMs : null);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("validates like optimize(), naming maxBatch's field", () => {
    expect(() => optimumTable(P1, { cores: 4, maxBatch: 0 })).toThrow(OptimizerInputError);
    expect(() => optimumTable(P1, { cores: 4, maxBatch: 0 })).toThrow(/^maxBatch: must be an integer/);
    expect(() => optimumTable(P1, { cores: 0, maxBatch: 4 })).toThrow(/^cores: /);
  });
});
