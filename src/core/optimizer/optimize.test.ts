import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { validateProfile, ProfileError, type ProfileCell } from "../profile/profile";
import { OptimizerInputError } from "./errors";
import { exhaustiveOptimize } from "./exhaustive-search";
import { arbitraryCase, arbitraryMonotoneGrid, arbitraryProfile } from "./fixtures/arbitrary-profiles";
import { P1, P2 } from "./fixtures/digest-profiles";
import { naiveExactFillTable, naiveOptimum } from "./naive-oracle";
import { optimize } from "./optimize";
import { optimumTable } from "./optimum-table";
import type { OptimizeRequest, OptimizeResult } from "./types";

/** The plan as ⟨t, b⟩ per instance, in order: comparable with the exhaustive search's cell lists. */
function expand(result: OptimizeResult): Array<[number, number]> {
  if (result.kind !== "plan") return [];
  return result.instances.flatMap((group) =>
    Array.from({ length: group.count }, () => [group.threads, group.batch] as [number, number]),
  );
}

function planOf(cells: ProfileCell[], request: OptimizeRequest) {
  const result = optimize(cells, request);
  if (result.kind !== "plan") throw new Error(`expected a plan, got: ${result.reason}`);
  return result;
}

function latencyOrUndefined(cells: ProfileCell[], request: OptimizeRequest): number | undefined {
  const result = optimize(cells, request);
  return result.kind === "plan" ? result.latencyMs : undefined;
}

describe("digest §5.4 vectors, profile P1", () => {
  it("Packrat DP P1 T=4, B=1: 4.2 = L[4][1], the single all-threads instance", () => {
    expect(planOf(P1, { cores: 4, batch: 1 })).toMatchObject({
      latencyMs: 4.2,
      idleCores: 0,
      instances: [{ count: 1, threads: 4, batch: 1 }],
    });
  });
  it("Packrat DP P1 T=4, B=2: 6 = {⟨2,1⟩×2} (beats ⟨4,2⟩ = 7.2 and max(10, 4.8) = 10)", () => {
    expect(expand(planOf(P1, { cores: 4, batch: 2 }))).toEqual([
      [2, 1],
      [2, 1],
    ]);
    expect(planOf(P1, { cores: 4, batch: 2 }).latencyMs).toBe(6);
  });
  it("Packrat DP P1 T=4, B=3: 10 = {⟨1,1⟩, ⟨3,2⟩} = max(10, 8.5); the tie {⟨1,1⟩×2, ⟨2,1⟩} has 3 instances", () => {
    for (const exactCores of [false, true]) {
      const plan = planOf(P1, { cores: 4, batch: 3, exactCores });
      expect(plan.latencyMs).toBe(10);
      expect(plan.instances).toEqual([
        { count: 1, threads: 1, batch: 1, latencyMs: 10 },
        { count: 1, threads: 3, batch: 2, latencyMs: 8.5 },
      ]);
    }
  });
  it("Packrat DP P1 T=4, B=4: unique {⟨1,1⟩×4} = 10; ⟨4,4⟩ = 13 → 1.3× better, {⟨2,2⟩×2} = 11", () => {
    const plan = planOf(P1, { cores: 4, batch: 4 });
    expect(expand(plan)).toEqual([
      [1, 1],
      [1, 1],
      [1, 1],
      [1, 1],
    ]);
    expect(plan.latencyMs).toBe(10);
    // Throughput = 1000 · 4 / 10 = 400 samples/s; speedup over ⟨1,4,4⟩ = 13 / 10.
    expect(plan.throughputPerS).toBe(400);
    expect(plan.baselines.allThreads).toMatchObject({ available: true, latencyMs: 13, speedup: 1.3 });
  });
  it("Packrat DP P1 T=3, B=4: the single all-threads instance ⟨3,4⟩ = 16 (t ≤ 2 splits give ≥ 19)", () => {
    expect(planOf(P1, { cores: 3, batch: 4 })).toMatchObject({
      latencyMs: 16,
      idleCores: 0,
      instances: [{ count: 1, threads: 3, batch: 4 }],
    });
  });
  it("Packrat DP P1 T=2, B=4: {⟨1,2⟩×2} = 19 beats ⟨2,4⟩ = 21", () => {
    const plan = planOf(P1, { cores: 2, batch: 4 });
    expect(expand(plan)).toEqual([
      [1, 2],
      [1, 2],
    ]);
    expect(plan.latencyMs).toBe(19);
  });
});

describe("digest §5.4 vectors, profile P2", () => {
  it("Packrat DP P2 T=6, B=4: unique {⟨3,2⟩×2} = 7; single ⟨6,4⟩ = 9.8 → 1.4×", () => {
    const plan = planOf(P2, { cores: 6, batch: 4 });
    expect(expand(plan)).toEqual([
      [3, 2],
      [3, 2],
    ]);
    expect(plan.latencyMs).toBe(7);
    expect(plan.baselines.allThreads.available && plan.baselines.allThreads.speedup).toBeCloseTo(1.4, 12);
  });
  it("Packrat DP P2 T=6, B=8: unique {⟨3,4⟩×2} = 13", () => {
    const plan = planOf(P2, { cores: 6, batch: 8 });
    expect(expand(plan)).toEqual([
      [3, 4],
      [3, 4],
    ]);
    expect(plan.latencyMs).toBe(13);
  });
  it("Packrat DP P2 T=5, B=3: unequal threads {⟨2,1⟩, ⟨3,2⟩} = max(5.5, 7) = 7", () => {
    const plan = planOf(P2, { cores: 5, batch: 3 });
    expect(expand(plan)).toEqual([
      [2, 1],
      [3, 2],
    ]);
    expect(plan.latencyMs).toBe(7);
  });
  it("Packrat DP P2 T=6, B=6: the 4-way tie at 10 resolves to the fewest instances, {⟨2,2⟩×3}", () => {
    for (const exactCores of [false, true]) {
      const plan = planOf(P2, { cores: 6, batch: 6, exactCores });
      expect(plan.instances).toEqual([{ count: 3, threads: 2, batch: 2, latencyMs: 10 }]);
    }
  });
});

describe("tie tolerance ε", () => {
  it("P1 T=4, B=4: ε = 0.1 admits 11 → {⟨2,2⟩×2}; ε = 0.31 admits 13 → the single ⟨4,4⟩", () => {
    // L* = 10 ({⟨1,1⟩×4}, 4 instances). Bound 10·1.1 = 11 admits ⟨2,2⟩ = 11 (2 instances);
    // bound 10·1.31 = 13.1 admits ⟨4,4⟩ = 13 (1 instance). The reported latency is the chosen plan's own.
    expect(planOf(P1, { cores: 4, batch: 4, tieTolerance: 0.1 })).toMatchObject({
      latencyMs: 11,
      instances: [{ count: 2, threads: 2, batch: 2 }],
    });
    expect(planOf(P1, { cores: 4, batch: 4, tieTolerance: 0.31 })).toMatchObject({
      latencyMs: 13,
      instances: [{ count: 1, threads: 4, batch: 4 }],
    });
  });
});

describe("idle cores and infeasibility", () => {
  it("Σt ≤ T leaves cores idle when more threads do not help: L[1][1] = 3 < L[2][1] = 9", () => {
    const cells = [
      { threads: 1, batch: 1, latencyMs: 3 },
      { threads: 2, batch: 1, latencyMs: 9 },
    ];
    expect(planOf(cells, { cores: 2, batch: 1 })).toMatchObject({ latencyMs: 3, idleCores: 1 });
    // exactCores must place both threads: ⟨2,1⟩ = 9 (⟨1,1⟩ alone would leave one idle).
    expect(planOf(cells, { cores: 2, batch: 1, exactCores: true })).toMatchObject({ latencyMs: 9, idleCores: 0 });
  });
  it("B = 3 with only b = 2 profiled: {kind: infeasible} with a reason, never Infinity", () => {
    const result = optimize([{ threads: 1, batch: 2, latencyMs: 3 }], { cores: 4, batch: 3 });
    expect(result.kind).toBe("infeasible");
    expect(result.kind === "infeasible" && result.reason).toMatch(/batch 3 exactly .* profiled batch sizes ≤ 3: 2/);
  });
  it("exactCores is infeasible when cores cannot all be placed: T = 3 with only t = 2 cells", () => {
    const result = optimize([{ threads: 2, batch: 1, latencyMs: 3 }], { cores: 3, batch: 2, exactCores: true });
    expect(result).toMatchObject({ kind: "infeasible" });
    expect(result.kind === "infeasible" && result.reason).toMatch(/exactly 3 threads/);
  });
  it("an empty profile is infeasible, saying why", () => {
    expect(optimize([], { cores: 4, batch: 1 })).toMatchObject({
      kind: "infeasible",
      reason: expect.stringMatching(/no cell/),
    });
  });
});

describe("input errors are typed and name the parameter", () => {
  it.each([
    [{ cores: 0, batch: 1 }, "cores", "invalid_cores"],
    [{ cores: 2.5, batch: 1 }, "cores", "invalid_cores"],
    [{ cores: Number.NaN, batch: 1 }, "cores", "invalid_cores"],
    [{ cores: 4, batch: 0 }, "batch", "invalid_batch"],
    [{ cores: 4, batch: -1 }, "batch", "invalid_batch"],
    [{ cores: 4, batch: 1, tieTolerance: -0.1 }, "tieTolerance", "invalid_tolerance"],
    [{ cores: 4, batch: 1, tieTolerance: Number.POSITIVE_INFINITY }, "tieTolerance", "invalid_tolerance"],
    [{ cores: 4096, batch: 1 << 20 }, "batch", "too_large"],
  ] as const)("%o → %s", (request, parameter, code) => {
    try {
      optimize(P1, request);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(OptimizerInputError);
      expect(error).toMatchObject({ parameter, code });
    }
  });
  it("a bad profile throws ProfileError", () => {
    expect(() => optimize([{ threads: 1, batch: 1, latencyMs: -5 }], { cores: 1, batch: 1 })).toThrow(ProfileError);
  });
});

describe("properties on random profiles (T ≤ 6, B ≤ 24)", () => {
  it("matches the exhaustive enumeration of multisets, latency and tie-broken plan, both modes, ε ∈ {0, 0.1, 0.5}", () => {
    fc.assert(
      fc.property(
        arbitraryCase,
        fc.boolean(),
        fc.constantFrom(0, 0.1, 0.5),
        ({ cores, batch, cells }, exactCores, tieTolerance) => {
          const request = { cores, batch, exactCores, tieTolerance };
          const result = optimize(cells, request);
          const expected = exhaustiveOptimize(validateProfile(cells), request);
          if (expected === undefined) {
            expect(result.kind).toBe("infeasible");
            return;
          }
          expect(result.kind).toBe("plan");
          expect([result.kind === "plan" ? result.latencyMs : undefined, expand(result)]).toEqual([
            expected.latencyMs,
            expected.cells,
          ]);
          if (result.kind !== "plan") return;
          // Bookkeeping: Σb = B, idle = T − Σt, throughput = 1000·B / latency.
          expect(result.instances.reduce((sum, g) => sum + g.count * g.batch, 0)).toBe(batch);
          expect(result.idleCores).toBe(cores - result.instances.reduce((sum, g) => sum + g.count * g.threads, 0));
          if (exactCores) expect(result.idleCores).toBe(0);
          expect(result.throughputPerS).toBeCloseTo((1000 * batch) / result.latencyMs, 9);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("its optimum equals the naive recurrence's, both modes", () => {
    fc.assert(
      fc.property(arbitraryCase, ({ cores, batch, cells }) => {
        const naive = naiveExactFillTable(validateProfile(cells), cores, batch);
        for (const exactCores of [false, true]) {
          expect(latencyOrUndefined(cells, { cores, batch, exactCores })).toBe(
            naiveOptimum(naive, cores, batch, exactCores),
          );
        }
      }),
      { numRuns: 200 },
    );
  });

  it("does not depend on the order of the profile's cells", () => {
    fc.assert(
      fc.property(arbitraryCase, fc.boolean(), ({ cores, batch, cells }, exactCores) => {
        const reversed = [...cells].reverse();
        expect(optimize(reversed, { cores, batch, exactCores })).toEqual(optimize(cells, { cores, batch, exactCores }));
      }),
      { numRuns: 100 },
    );
  });

  it("with Σt ≤ T the optimum is nonincreasing in T (more cores never hurt), on any profile", () => {
    fc.assert(
      fc.property(
        arbitraryProfile,
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 1, max: 24 }),
        (cells, cores, batch) => {
          const fewer = latencyOrUndefined(cells, { cores, batch });
          const more = latencyOrUndefined(cells, { cores: cores + 1, batch });
          if (fewer !== undefined) {
            expect(more).toBeDefined();
            expect(more).toBeLessThanOrEqual(fewer);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("the Σt ≤ T optimum is never worse than exactCores (every exact plan is also a Σt ≤ T plan)", () => {
    fc.assert(
      fc.property(arbitraryCase, ({ cores, batch, cells }) => {
        const exact = latencyOrUndefined(cells, { cores, batch, exactCores: true });
        const relaxed = latencyOrUndefined(cells, { cores, batch });
        if (exact !== undefined) {
          expect(relaxed).toBeDefined();
          expect(relaxed).toBeLessThanOrEqual(exact);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("monotonicity in B", () => {
  it("on profiles complete in b with L nondecreasing in b and nonincreasing in t, the optimum is nondecreasing in B", () => {
    // Why it holds: from a plan for B + 1 remove one sample from an instance with b ≥ 2 (L[t][b−1] ≤ L[t][b]), or,
    // if every instance has b = 1, drop one and give its threads to another (L nonincreasing in t).
    fc.assert(
      fc.property(arbitraryMonotoneGrid, fc.boolean(), ({ cores, maxBatch, cells }, exactCores) => {
        const rows = optimumTable(cells, { cores, maxBatch, exactCores }).rows;
        for (let i = 1; i < rows.length; i++) {
          const [previous, current] = [rows[i - 1]?.latencyMs, rows[i]?.latencyMs];
          expect(previous).not.toBeNull();
          expect(current).not.toBeNull();
          expect(current ?? 0).toBeGreaterThanOrEqual(previous ?? 0);
        }
      }),
      { numRuns: 200 },
    );
  });

  it("counterexample on a power-of-two grid: T = 2, b ∈ {1, 2, 4}, L[1][·] = 10, L[2][·] = 1 → opt(3) = 10 > opt(4) = 1", () => {
    // B = 3 = 1 + 2 needs two instances, so each gets one thread: max(L[1][1], L[1][2]) = 10.
    // B = 4 is one profiled size: ⟨2,4⟩ with both threads = 1. Monotonicity needs every b profiled.
    const cells = [1, 2, 4].flatMap((batch) => [
      { threads: 1, batch, latencyMs: 10 },
      { threads: 2, batch, latencyMs: 1 },
    ]);
    expect(planOf(cells, { cores: 2, batch: 3 })).toMatchObject({
      latencyMs: 10,
      instances: [
        { count: 1, threads: 1, batch: 1 },
        { count: 1, threads: 1, batch: 2 },
      ],
    });
    expect(planOf(cells, { cores: 2, batch: 4 })).toMatchObject({
      latencyMs: 1,
      instances: [{ count: 1, threads: 2, batch: 4 }],
    });
  });
});
