import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { pagedSequence } from "./paged-kv";

describe("F-62 paged KV blocks", () => {
  it("1,000 tokens in 16-token blocks → 63 blocks, 1,008 slots, 8 wasted (0.79%)", () => {
    const p = pagedSequence(1000, 16);
    expect(p.blocks).toBe(63);
    expect(p.wastedTokens).toBe(8); // 16 − (1,000 mod 16 = 8)
    expect((p.wasteShare * 100).toFixed(2)).toBe("0.79");
  });

  it("a sequence that fills its blocks exactly wastes nothing", () => {
    expect(pagedSequence(1024, 16)).toEqual({ blocks: 64, wastedTokens: 0, wasteShare: 0 });
    expect(pagedSequence(0, 16)).toEqual({ blocks: 0, wastedTokens: 0, wasteShare: 0 });
  });

  it("property: waste = block − (tokens mod block) when the remainder is nonzero, else 0, and always < one block", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 1, max: 512 }), (tokens, block) => {
        const p = pagedSequence(tokens, block);
        const r = tokens % block;
        expect(p.wastedTokens).toBe(r === 0 ? 0 : block - r);
        expect(p.wastedTokens).toBeLessThan(block);
      }),
      { numRuns: 200 },
    );
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => pagedSequence(10, 0)).toThrow(PlanningInputError);
    expect(() => pagedSequence(-1, 16)).toThrow(/^tokens/);
  });
});
