import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { effectiveBatchCap, latencyBoundedBatch, planningMeanLatencyMs, tailEnvelope } from "./latency-screens";
import { RESNET50_REPRODUCING as R, RESNET50_STATED as A } from "./resnet50-reference";
import { batchThroughputPerS, serviceTimeMs, type ServiceTimeModel, type TwoSegmentServiceTime } from "./service-time";

/** Brute force: scan b = 1, 2, … for the largest b with T_w/2 + T(b) ≤ budget. */
function scanBound(model: ServiceTimeModel, windowMs: number, budgetMs: number, upTo: number): number {
  let best = 0;
  for (let b = 1; b <= upTo; b++) if (windowMs / 2 + serviceTimeMs(model, b) <= budgetMs) best = b;
  return best;
}

describe("Eq. 11 / TV-037: latency-bounded batch under a 50 ms mean budget", () => {
  it("TV-037: T_w = 5 ms → 47.5 ms left, B_L = floor(1,337.74) = 1,337 (fixture R); fixture A floor(1,333.33) = 1,333", () => {
    // (50 − 2.5 − 3.49528) / 0.0328947 = 1,337.74; (50 − 2.5 − 3.5) / 0.033 = 1,333.33
    expect(latencyBoundedBatch(R, 5, 50)).toBe(1337);
    expect(latencyBoundedBatch(A, 5, 50)).toBe(1333);
    expect(Number((1337).toPrecision(3))).toBe(1340); // "about 1,340"
  });

  it("TV-037: T_w = 25 ms → 37.5 ms left, B_L = 1,033 (fixture R), 1,030 (fixture A), 'about 1,030'", () => {
    expect(latencyBoundedBatch(R, 25, 50)).toBe(1033);
    expect(latencyBoundedBatch(A, 25, 50)).toBe(1030);
  });

  it("TV-037: an engine cap of 128 binds: B = 128, 128 / 7.7058 ms = 16,611 img/s ('about 16,600'; A: 16,572)", () => {
    for (const windowMs of [5, 25]) {
      const b = effectiveBatchCap(latencyBoundedBatch(R, windowMs, 50), 128);
      expect(b).toBe(128);
      expect(Math.round(batchThroughputPerS(R, b))).toBe(16_611);
    }
    expect(Math.round(batchThroughputPerS(A, 128))).toBe(16_572);
    // "Widening the window by 20 ms buys no saturated capacity while increasing average formation wait by 10 ms."
    expect(25 / 2 - 5 / 2).toBe(10);
  });

  it("property: the closed form equals a brute-force scan (affine and two-segment models)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.double({ min: 0.01, max: 2, noNaN: true }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.double({ min: 1, max: 100, noNaN: true }),
        fc.integer({ min: 1, max: 200 }),
        (fixedMs, perSampleMs, windowMs, budgetMs, breakBatch) => {
          const affine: ServiceTimeModel = { kind: "affine", fixedMs, perSampleMs };
          expect(latencyBoundedBatch(affine, windowMs, budgetMs)).toBe(scanBound(affine, windowMs, budgetMs, 20_000));
          const kinked: TwoSegmentServiceTime = {
            kind: "two-segment",
            breakBatch,
            lower: { fixedMs, perSampleMs },
            upper: { fixedMs: fixedMs + 1, perSampleMs: perSampleMs / 2 }, // a jump up, then a shallower slope
          };
          expect(latencyBoundedBatch(kinked, windowMs, budgetMs)).toBe(scanBound(kinked, windowMs, budgetMs, 20_000));
        },
      ),
      // Decimal ties that the closed form once summed as (T_w/2 + F) + s·b and the scan as T_w/2 + (F + s·b): 244 vs 243
      // (29.800000000000004 > 29.8) and 1,024 vs 1,023 (the other way round).
      {
        numRuns: 100,
        examples: [
          [12.9, 0.05, 9.4, 29.8, 73],
          [16.1, 0.05, 19.8, 77.2, 161],
        ],
      },
    );
  });

  it("an exact boundary is inside: F = 1, s = 1, T_w = 2, budget 6 → 1 + 1 + B ≤ 6 → B_L = 4", () => {
    expect(latencyBoundedBatch({ kind: "affine", fixedMs: 1, perSampleMs: 1 }, 2, 6)).toBe(4);
  });

  it("nothing fits → 0; no per-sample cost → null (unbounded), and the engine cap then decides", () => {
    expect(latencyBoundedBatch(R, 10, 5)).toBe(0); // 5 + 3.528 > 5
    const flat: ServiceTimeModel = { kind: "affine", fixedMs: 3, perSampleMs: 0 };
    expect(latencyBoundedBatch(flat, 10, 50)).toBeNull();
    expect(effectiveBatchCap(null, 64, 40)).toBe(40);
    expect(effectiveBatchCap(1337, 128)).toBe(128);
  });
});

describe("Eq. 12 / TV-038, TV-040: mean latency and the conservative tail envelope", () => {
  it("TV-038: λ = 500, T_w = 10 → mean 5 + T(6) = 8.693 ms (8.7), envelope 10 + T(12) = 13.890 ms (13.9), ratio 1.6×", () => {
    const mean = planningMeanLatencyMs(R, 500, 10);
    const env = tailEnvelope(R, 500, 10);
    expect(mean.toFixed(3)).toBe("8.693");
    expect(env.batch).toBe(12);
    expect(env.envelopeMs.toFixed(3)).toBe("13.890");
    expect((env.envelopeMs / mean).toFixed(1)).toBe("1.6");
  });

  it("Table 10: conservative tail envelope 12 + T(13) = 15.923 ms (display 15.9)", () => {
    const env = tailEnvelope(R, 500, 12);
    expect(env.requestSeenBatch).toBe(13);
    expect(env.envelopeMs.toFixed(3)).toBe("15.923");
  });

  it("a max batch caps the request-seen batch: B_max = 8 at λT_w = 5 → T_w + T(8)", () => {
    const env = tailEnvelope(R, 500, 10, { maxBatch: 8 });
    expect(env.requestSeenBatch).toBe(12);
    expect(env.batch).toBe(8);
    expect(env.envelopeMs).toBeCloseTo(10 + serviceTimeMs(R, 8), 12);
    expect(planningMeanLatencyMs(R, 500, 10, 4)).toBeCloseTo(5 + serviceTimeMs(R, 4), 12);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => latencyBoundedBatch(R, 5, 0)).toThrow(PlanningInputError);
    expect(() => latencyBoundedBatch(R, -5, 50)).toThrow(/^windowMs/);
    expect(() => tailEnvelope(R, 500, 10, { maxBatch: 2.5 })).toThrow(/^maxBatch/);
    expect(() => effectiveBatchCap(10, 0)).toThrow(/^engineMaxBatch/);
    expect(() => latencyBoundedBatch({ kind: "affine", fixedMs: 1, perSampleMs: -1 }, 1, 10)).toThrow(/^model/);
  });
});
