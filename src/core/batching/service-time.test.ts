import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { RESNET50_REPRODUCING as R, RESNET50_STATED as A } from "./resnet50-reference";
import {
  affineServiceTime,
  batchSweep,
  batchThroughputPerS,
  fixedCostShare,
  perSampleTimeMs,
  serviceTimeMs,
  type TwoSegmentServiceTime,
} from "./service-time";

/** Rounds like the chapter's display: n significant figures. */
const sig = (x: number, n: number) => Number(x.toPrecision(n));

describe("Table 8 / Napkin Math 13.4: batching sweep (fixture R, 10 ms window)", () => {
  // T(B) = 3.49528 + 0.0328947·B; window column = 10 + T(B); per-image = T/B; throughput = B/T; share = F/T.
  const rows = [
    { b: 1, t: "3.53", w: "13.5", per: "3.53", thr: 283.4, share: 99 },
    { b: 4, t: "3.63", w: "13.6", per: "0.91", thr: 1100, share: 96 },
    { b: 8, t: "3.76", w: "13.8", per: "0.47", thr: 2130, share: 93 },
    { b: 16, t: "4.02", w: "14.0", per: "0.25", thr: 3980, share: 87 },
    { b: 32, t: "4.55", w: "14.5", per: "0.14", thr: 7040, share: 77 },
  ] as const;
  const sweep = batchSweep(
    R,
    rows.map((r) => r.b),
    10,
  );

  for (const [i, row] of rows.entries()) {
    it(`Table 8 row B = ${row.b}: ${row.t} ms, ${row.w} ms with window, ${row.per} ms/image, ${row.share}% fixed`, () => {
      const s = sweep[i]!;
      expect(s.serviceMs.toFixed(2)).toBe(row.t);
      expect(s.windowPlusServiceMs.toFixed(1)).toBe(row.w);
      expect(s.perSampleMs.toFixed(2)).toBe(row.per);
      expect(Math.round(s.fixedCostShare * 100)).toBe(row.share);
      // Throughput shows 3 s.f. except B = 1, which the text quotes as 283 (Example 13.1) and the table as "280".
      if (row.b === 1) {
        expect(sig(s.throughputPerS, 4)).toBe(283.4);
        expect(sig(s.throughputPerS, 2)).toBe(280);
      } else {
        expect(sig(s.throughputPerS, 3)).toBe(row.thr);
      }
    });
  }

  it("Table 8: throughput B32/B1 = 7,036.2 / 283.4 = 24.8× (display 25×)", () => {
    const ratio = batchThroughputPerS(R, 32) / batchThroughputPerS(R, 1);
    expect(ratio.toFixed(1)).toBe("24.8");
    expect(Math.round(ratio)).toBe(25);
  });

  it("Napkin Math 13.4: 3.76 ms ÷ 8 ≈ 0.47 ms per image, 8 ÷ 3.76 ms ≈ 2,130 img/s", () => {
    expect(perSampleTimeMs(R, 8).toFixed(2)).toBe("0.47");
    expect(sig(batchThroughputPerS(R, 8), 3)).toBe(2130);
  });

  it("TV-031: batch 8 is 2,128.5 / 283.4 = 7.51× batch-1 service throughput (display 7.5×)", () => {
    expect((batchThroughputPerS(R, 8) / batchThroughputPerS(R, 1)).toFixed(1)).toBe("7.5");
  });

  it("TV-044 / Fallacy 5: batch 16 → 32 raises saturated throughput 76.9% (display 77%); 4.0 → 4.5 ms per batch", () => {
    // 7,036.2 / 3,978.5 = 1.7686
    const gain = batchThroughputPerS(R, 32) / batchThroughputPerS(R, 16) - 1;
    expect((gain * 100).toFixed(1)).toBe("76.9");
    expect(serviceTimeMs(R, 16).toFixed(1)).toBe("4.0");
    expect(serviceTimeMs(R, 32).toFixed(1)).toBe("4.5");
  });

  it("§0.3 fixture A: T(32) = 3.50 + 1.056 = 4.556 ms, 32/T(32) = 7,023.7 img/s", () => {
    expect(serviceTimeMs(A, 32)).toBeCloseTo(4.556, 12);
    expect(batchThroughputPerS(A, 32).toFixed(1)).toBe("7023.7");
  });
});

describe("service-time model", () => {
  it("a two-segment model uses the lower line up to the break and the upper one after", () => {
    const m: TwoSegmentServiceTime = {
      kind: "two-segment",
      breakBatch: 16,
      lower: { fixedMs: 2, perSampleMs: 0.5 },
      upper: { fixedMs: -6, perSampleMs: 1 },
    };
    expect(serviceTimeMs(m, 16)).toBe(10); // 2 + 0.5·16
    expect(serviceTimeMs(m, 32)).toBe(26); // −6 + 32
    expect(fixedCostShare(m, 16)).toBe(0.2); // 2 / 10
  });

  it("bad input throws a typed error naming the parameter, never NaN", () => {
    const cases: Array<[() => unknown, string]> = [
      [() => affineServiceTime(Number.NaN, 1), "fixedMs"],
      [() => affineServiceTime(1, -1), "perSampleMs"],
      [() => affineServiceTime(0, 0), "perSampleMs"],
      [() => serviceTimeMs(R, 0), "batch"],
      [() => serviceTimeMs(R, Number.POSITIVE_INFINITY), "batch"],
      [() => batchSweep(R, [1], -1), "windowMs"],
      [() => serviceTimeMs({ kind: "affine", fixedMs: -5, perSampleMs: 1 }, 2), "model"],
      [() => serviceTimeMs({ kind: "affine", fixedMs: 1, perSampleMs: 1e308 }, 1e10), "batch"],
    ];
    for (const [f, parameter] of cases) {
      expect(f).toThrow(PlanningInputError);
      try {
        f();
      } catch (e) {
        expect((e as PlanningInputError).parameter).toBe(parameter);
      }
    }
  });
});
