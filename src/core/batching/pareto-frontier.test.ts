import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import {
  bestUnderLatencyLimit,
  dominates,
  evaluateCandidate,
  paretoFrontier,
  type BatchingCandidate,
} from "./pareto-frontier";
import { RESNET50_REPRODUCING as R } from "./resnet50-reference";

describe("§13.5.4 latency-throughput Pareto frontier (F-38)", () => {
  it("TV-039: (2 ms, cap 8) → 2,128.5 img/s (2,100), mean 1 + 3.7584 = 4.758 (4.8), envelope 5.758 (5.8)", () => {
    const p = evaluateCandidate(R, { windowMs: 2, maxBatch: 8 });
    expect(p.throughputPerS.toFixed(1)).toBe("2128.5");
    expect(Number(p.throughputPerS.toPrecision(2))).toBe(2100);
    expect(p.meanLatencyMs.toFixed(3)).toBe("4.758");
    expect(p.envelopeMs.toFixed(3)).toBe("5.758");
  });

  it("TV-039: (50 ms, cap 128) → 16,611 img/s (16,600), mean 25 + 7.7058 = 32.706 (32.7), envelope 57.706 (57.7)", () => {
    const p = evaluateCandidate(R, { windowMs: 50, maxBatch: 128 });
    expect(Math.round(p.throughputPerS)).toBe(16_611);
    expect(p.meanLatencyMs.toFixed(3)).toBe("32.706");
    expect(p.envelopeMs.toFixed(3)).toBe("57.706");
  });

  it("TV-039: throughput gain 680.4% ('680 percent') and envelope ratio 10.02 ('10×'), from unrounded values", () => {
    const lo = evaluateCandidate(R, { windowMs: 2, maxBatch: 8 });
    const hi = evaluateCandidate(R, { windowMs: 50, maxBatch: 128 });
    expect(((hi.throughputPerS / lo.throughputPerS - 1) * 100).toFixed(1)).toBe("680.4");
    expect((hi.envelopeMs / lo.envelopeMs).toFixed(2)).toBe("10.02");
  });

  it("§13.5.4: the chapter's two endpoints are both on the frontier, in rising order; a dominated point is left off", () => {
    const candidates: BatchingCandidate[] = [
      { windowMs: 50, maxBatch: 128 },
      { windowMs: 2, maxBatch: 8 },
      { windowMs: 10, maxBatch: 32 },
      { windowMs: 20, maxBatch: 8 }, // same throughput as (2, 8), 18 ms later: dominated
    ];
    const f = paretoFrontier(R, candidates);
    expect(f.map((p) => [p.windowMs, p.maxBatch])).toEqual([
      [2, 8],
      [10, 32],
      [50, 128],
    ]);
  });

  it("at an arrival rate, unstable candidates are left off and batches are the request-seen ones", () => {
    // 500/s: cap 1 carries only 283/s → unstable. (10, 32): envelope 10 + T(min(12, 32)) = 13.890 ms.
    const f = paretoFrontier(
      R,
      [
        { windowMs: 0, maxBatch: 1 },
        { windowMs: 10, maxBatch: 32 },
      ],
      { arrivalRatePerS: 500 },
    );
    expect(f).toHaveLength(1);
    expect(f[0]!.envelopeMs.toFixed(3)).toBe("13.890");
    expect(f[0]!.meanLatencyMs.toFixed(3)).toBe("8.693");
  });

  it("best under a latency limit: the fastest frontier point whose envelope fits", () => {
    const candidates: BatchingCandidate[] = [];
    for (const windowMs of [2, 5, 10, 20, 50])
      for (const maxBatch of [8, 16, 32, 64, 128]) candidates.push({ windowMs, maxBatch });
    // With full batches, envelope = T_w + T(cap); under 15 ms the fastest is the smallest window with the largest
    // cap: 2 + T(128) = 9.706 ms at 16,611/s (5 + T(128) = 12.706 ties on throughput but is later).
    const best = bestUnderLatencyLimit(R, candidates, 15);
    expect(best).toMatchObject({ windowMs: 2, maxBatch: 128 });
    expect(bestUnderLatencyLimit(R, candidates, 5)).toBeNull(); // 2 + T(8) = 5.758 > 5
  });

  it("property: the frontier holds no dominated point, and every candidate left off is dominated by one on it", () => {
    const candidate = fc.record({
      windowMs: fc.integer({ min: 0, max: 60 }),
      maxBatch: fc.integer({ min: 1, max: 256 }),
    });
    fc.assert(
      fc.property(
        fc.array(candidate, { minLength: 1, maxLength: 30 }),
        fc.option(fc.integer({ min: 1, max: 20_000 }), { nil: undefined }),
        (cands, rate) => {
          const options = { arrivalRatePerS: rate };
          const all = cands.map((c) => evaluateCandidate(R, c, options)).filter((p) => p.stable);
          const frontier = paretoFrontier(R, cands, options);
          for (const p of frontier) for (const q of all) expect(dominates(q, p)).toBe(false);
          for (const q of all) {
            const on = frontier.some((p) => p.envelopeMs === q.envelopeMs && p.throughputPerS === q.throughputPerS);
            if (!on) expect(frontier.some((p) => dominates(p, q))).toBe(true);
          }
          for (let i = 1; i < frontier.length; i++) {
            expect(frontier[i]!.envelopeMs).toBeGreaterThanOrEqual(frontier[i - 1]!.envelopeMs);
            expect(frontier[i]!.throughputPerS).toBeGreaterThanOrEqual(frontier[i - 1]!.throughputPerS);
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => evaluateCandidate(R, { windowMs: -1, maxBatch: 8 })).toThrow(PlanningInputError);
    expect(() => evaluateCandidate(R, { windowMs: 1, maxBatch: 8.5 })).toThrow(/^maxBatch/);
    expect(() => bestUnderLatencyLimit(R, [], 10)).toThrow(/^candidates/);
    expect(() => bestUnderLatencyLimit(R, [{ windowMs: 1, maxBatch: 8 }], 0)).toThrow(/^latencyLimitMs/);
    expect(() => paretoFrontier(R, [{ windowMs: 1, maxBatch: 8 }], { arrivalRatePerS: -5 })).toThrow(
      /^arrivalRatePerS/,
    );
  });
});
