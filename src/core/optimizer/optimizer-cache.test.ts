import { describe, expect, it } from "vitest";
import { validateProfile } from "../profile/profile";
import { OptimizerInputError } from "./errors";
import { P1, P2 } from "./fixtures/digest-profiles";
import { optimize } from "./optimize";
import { optimumTable } from "./optimum-table";
import { createOptimizerCache } from "./optimizer-cache";

describe("createOptimizerCache", () => {
  it("returns the same frozen result for a repeated ⟨profile, T, B, options⟩ and counts hits", () => {
    const cache = createOptimizerCache();
    const first = cache.optimize(P1, { cores: 4, batch: 3 });
    const second = cache.optimize(P1, { cores: 4, batch: 3 });
    expect(second).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(cache.stats()).toEqual({ hits: 1, misses: 1, size: 1 });
  });

  it("keys on the profile's content: an equal profile in another order hits", () => {
    const cache = createOptimizerCache();
    const first = cache.optimize(P1, { cores: 4, batch: 4 });
    expect(cache.optimize([...P1].reverse(), { cores: 4, batch: 4 })).toBe(first);
    expect(cache.optimize(validateProfile(P1), { cores: 4, batch: 4 })).toBe(first);
    expect(cache.stats().hits).toBe(2);
  });

  it("misses when T, B, exactCores, ε or the profile differ", () => {
    const cache = createOptimizerCache();
    cache.optimize(P1, { cores: 4, batch: 4 });
    cache.optimize(P1, { cores: 3, batch: 4 });
    cache.optimize(P1, { cores: 4, batch: 2 });
    cache.optimize(P1, { cores: 4, batch: 4, exactCores: true });
    cache.optimize(P1, { cores: 4, batch: 4, tieTolerance: 0.1 });
    cache.optimize(P2, { cores: 4, batch: 4 });
    expect(cache.stats()).toEqual({ hits: 0, misses: 6, size: 6 });
  });

  it("gives the uncached answers while reusing one exact-fill table across T and B", () => {
    const cache = createOptimizerCache();
    // Grow the table (B = 2 then B = 8), then ask inside it (T = 2, B = 4) and at its edge.
    for (const [cores, batch] of [
      [4, 2],
      [6, 8],
      [2, 4],
      [6, 6],
      [5, 3],
    ] as const) {
      expect(cache.optimize(P2, { cores, batch })).toEqual(optimize(P2, { cores, batch }));
    }
    expect(cache.table(P2, { cores: 6, maxBatch: 8 })).toEqual(optimumTable(P2, { cores: 6, maxBatch: 8 }));
  });

  it("evicts the least recently used entry beyond maxEntries", () => {
    const cache = createOptimizerCache({ maxEntries: 2 });
    const b1 = cache.optimize(P1, { cores: 4, batch: 1 });
    cache.optimize(P1, { cores: 4, batch: 2 });
    cache.optimize(P1, { cores: 4, batch: 1 }); // touch B = 1: B = 2 is now the oldest
    cache.optimize(P1, { cores: 4, batch: 3 }); // evicts B = 2
    expect(cache.stats().size).toBe(2);
    expect(cache.optimize(P1, { cores: 4, batch: 1 })).toBe(b1);
    const misses = cache.stats().misses;
    cache.optimize(P1, { cores: 4, batch: 2 });
    expect(cache.stats().misses).toBe(misses + 1);
  });

  it("clear() empties it", () => {
    const cache = createOptimizerCache();
    cache.optimize(P1, { cores: 4, batch: 1 });
    cache.clear();
    expect(cache.stats()).toEqual({ hits: 0, misses: 0, size: 0 });
  });

  it("rejects a non-positive maxEntries with a typed error", () => {
    expect(() => createOptimizerCache({ maxEntries: 0 })).toThrow(OptimizerInputError);
  });
});
