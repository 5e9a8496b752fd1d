import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { kneeBatch, unpipelinedLatencyMs, unpipelinedThroughputPerS } from "./knee";
import { RESNET50_REPRODUCING as R, RESNET50_STATED as A } from "./resnet50-reference";
import { batchThroughputPerS, type TwoSegmentServiceTime } from "./service-time";

describe("Figure 6 / TV-032: unpipelined throughput and the knee (10 ms window)", () => {
  it("TV-032: batch 1 unpipelined = 1 / (10 + 3.528) ms = 73.9 req/s (display 74) vs 283 back to back", () => {
    expect(unpipelinedThroughputPerS(R, 1, 10).toFixed(1)).toBe("73.9");
    expect(Math.round(batchThroughputPerS(R, 1))).toBe(283);
  });

  it("TV-032: knee B* = (10 + 3.4953) / 0.0328947 = 410.3 (display 'near batch 410'); fixture A gives 409.1", () => {
    expect(kneeBatch(R, 10)!.toFixed(1)).toBe("410.3");
    expect(kneeBatch(A, 10)!.toFixed(1)).toBe("409.1"); // 13.5 / 0.033
  });

  it("TV-032: at B*, latency = 2 × 13.495 = 26.99 ms and throughput = 15,200 img/s = ½ × 30,400", () => {
    const knee = kneeBatch(R, 10)!;
    const latency = unpipelinedLatencyMs(R, knee, 10);
    expect(latency.toFixed(2)).toBe("26.99");
    expect(latency).toBeCloseTo(2 * (10 + R.fixedMs), 9);
    expect(unpipelinedThroughputPerS(R, knee, 10)).toBeCloseTo(30_400 / 2, 6);
  });

  it("a two-segment model's knee lies in the segment that solves it; no per-sample cost means no knee", () => {
    const m: TwoSegmentServiceTime = {
      kind: "two-segment",
      breakBatch: 8,
      lower: { fixedMs: 4, perSampleMs: 0.01 }, // (10 + 4)/0.01 = 1,400 > 8: not in the lower segment
      upper: { fixedMs: 2, perSampleMs: 0.1 }, // (10 + 2)/0.1 = 120 > 8: the knee
    };
    expect(kneeBatch(m, 10)).toBeCloseTo(120, 9);
    expect(kneeBatch({ kind: "affine", fixedMs: 3, perSampleMs: 0 }, 10)).toBeNull();
  });

  it("a negative window is a typed error naming windowMs", () => {
    expect(() => kneeBatch(R, -1)).toThrow(PlanningInputError);
    expect(() => unpipelinedLatencyMs(R, 1, Number.NaN)).toThrow(/windowMs/);
  });
});
