import { describe, expect, it } from "vitest";
import { INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS, LatencyHistogram } from "@/core/stats/histogram";
import {
  BadPartHistogramError,
  CorruptRollupPartError,
  ROLLUP_PART_STAGES,
  rollupPartColumn,
} from "./deployment-columns";

const encoded = (ms: number, count: number) => {
  const h = LatencyHistogram.create(INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS);
  h.recordMs(ms, count);
  return h.encode();
};

describe("rollupPartColumn (a metrics message's histograms as bytes)", () => {
  it("reads back every stage's wire encoding, byte for byte, smaller than the base64 it came as", () => {
    const histograms = Object.fromEntries(ROLLUP_PART_STAGES.map((stage, i) => [stage, encoded(i + 1, 10 * (i + 1))]));
    const bytes = rollupPartColumn.write(histograms);
    expect(rollupPartColumn.read(bytes)).toEqual(histograms);
    const base64 = Object.values(histograms).reduce((n, e) => n + e.length, 0);
    expect(bytes.length).toBeLessThan(base64 * 0.8);
    expect(LatencyHistogram.decode(rollupPartColumn.read(bytes).compute!).percentileMs(50)).toBeCloseTo(5, 1);
  });
  it("keeps only the stages that came; one stage alone reads as that stage", () => {
    const bytes = rollupPartColumn.write({ compute: encoded(8, 3), total: encoded(9, 3) });
    expect(Object.keys(rollupPartColumn.read(bytes))).toEqual(["compute", "total"]);
    expect(rollupPartColumn.read(bytes, "total")).toEqual({ total: encoded(9, 3) });
    expect(rollupPartColumn.read(bytes, "busy")).toEqual({});
    expect(rollupPartColumn.read(rollupPartColumn.write({}))).toEqual({});
  });
  it("refuses a value that is not a compressed HdrHistogram on the way in, naming the stage", () => {
    for (const bad of ["aGVsbG8gd29ybGQ=", encoded(1, 1).slice(0, -8), "!!"]) {
      expect(() => rollupPartColumn.write({ compute: encoded(1, 1), busy: bad })).toThrow(BadPartHistogramError);
      expect(() => rollupPartColumn.write({ busy: bad })).toThrow(/histograms\.busy/);
    }
  });
  it("refuses stored bytes it cannot read: unknown format, stage code, or a truncated histogram", () => {
    const good = rollupPartColumn.write({ compute: encoded(2, 2) });
    expect(() => rollupPartColumn.read(new Uint8Array())).toThrow(CorruptRollupPartError);
    expect(() => rollupPartColumn.read(Buffer.concat([Buffer.of(2), good.subarray(1)]))).toThrow(/unknown format/);
    expect(() => rollupPartColumn.read(Buffer.of(1, 99, 0, 0))).toThrow(/unknown stage code/);
    expect(() => rollupPartColumn.read(good.subarray(0, good.length - 1))).toThrow(/truncated/);
    expect(() => rollupPartColumn.read(good.subarray(0, 3))).toThrow(/truncated/);
  });
});
