import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { StatsInputError } from "./errors";
import {
  HISTOGRAM_SIGNIFICANT_DIGITS,
  INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS,
  LatencyHistogram,
  MAX_ENCODED_HISTOGRAM_LENGTH,
} from "./histogram";
import { Prng } from "./prng";

/** Nearest-rank percentile of raw samples: the smallest value with at least p% of the samples at or below it. */
function exactPercentile(values: readonly number[], percentile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((percentile / 100) * sorted.length));
  return sorted[rank - 1]!;
}

function histogramOf(valuesMs: readonly number[]): LatencyHistogram {
  const h = LatencyHistogram.create();
  for (const v of valuesMs) h.recordMs(v);
  return h;
}

// Three significant digits: a recorded value is reported within 10^-3 relative (plus the 1 µs recording unit).
const RELATIVE = 10 ** -HISTOGRAM_SIGNIFICANT_DIGITS;
const latencies = fc.array(fc.double({ min: 0.01, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 300 });

describe("LatencyHistogram (hdr-histogram-js, µs, 3 significant digits)", () => {
  it("percentiles are within 0.1% (+1 µs) of the exact nearest-rank percentile of the samples (brute force)", () => {
    fc.assert(
      fc.property(latencies, fc.constantFrom(1, 50, 90, 95, 99, 99.9, 100), (values, p) => {
        const got = histogramOf(values).percentileMs(p);
        const want = exactPercentile(values, p);
        expect(Math.abs(got - want)).toBeLessThanOrEqual(want * RELATIVE + 0.001);
      }),
      { numRuns: 200 },
    );
  });
  it("summary: count, mean, p50/p90/p95/p99, max — on 1, 2, …, 1,000 ms (p50 = 500, p90 = 900, p99 = 990, max = 1,000)", () => {
    const s = histogramOf(Array.from({ length: 1000 }, (_, i) => i + 1)).summary();
    expect(s.count).toBe(1000);
    const near = (got: number, want: number) => expect(Math.abs(got - want)).toBeLessThanOrEqual(want * RELATIVE);
    near(s.meanMs, 500.5);
    near(s.p50Ms, 500);
    near(s.p90Ms, 900);
    near(s.p95Ms, 950);
    near(s.p99Ms, 990);
    near(s.maxMs, 1000);
  });
  it("meanMs is HdrHistogram's mean (the summary's), exactly, on any samples, also after a merge over the wire", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 120_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
        fc.array(fc.double({ min: 0, max: 5, noNaN: true }), { maxLength: 50 }),
        (slow, fast) => {
          const h = LatencyHistogram.create();
          for (const ms of slow) h.recordMs(ms);
          const other = LatencyHistogram.create();
          for (const ms of fast) other.recordMs(ms);
          h.add(LatencyHistogram.decode(other.encode()));
          expect(h.meanMs()).toBe(h.summary().meanMs);
          const decoded = LatencyHistogram.decode(h.encode());
          expect(decoded.meanMs()).toBe(decoded.summary().meanMs);
        },
      ),
    );
    expect(LatencyHistogram.create().meanMs()).toBe(0);
  });

  it("records whole microseconds: 1.2344 ms is kept as 1,234 µs, 1.2346 ms as 1,235 µs", () => {
    const h = LatencyHistogram.create();
    h.recordMs(1.2344);
    expect(h.percentileMs(100)).toBe(1.234);
    const g = LatencyHistogram.create();
    g.recordUs(1235);
    g.recordMs(1.2346, 3);
    expect(g.count).toBe(4);
    expect(g.percentileMs(0)).toBe(1.235);
  });
  it("the wire form is base64 and round-trips: decode(encode(h)) has the same count and percentiles", () => {
    fc.assert(
      fc.property(latencies, (values) => {
        const h = histogramOf(values);
        const wire = h.encode();
        expect(wire).toMatch(/^[A-Za-z0-9+/]+=*$/);
        const back = LatencyHistogram.decode(wire);
        expect(back.summary()).toEqual(h.summary());
        for (const p of [0, 10, 33.3, 75, 99.99]) expect(back.percentileMs(p)).toBe(h.percentileMs(p));
      }),
      { numRuns: 100 },
    );
  });
  it("merging equals recording every sample into one histogram (brute force), and leaves the inputs alone", () => {
    fc.assert(
      fc.property(fc.array(latencies, { minLength: 1, maxLength: 5 }), (groups) => {
        const parts = groups.map(histogramOf);
        const before = parts.map((p) => p.count);
        const merged = LatencyHistogram.merge(parts);
        const all = histogramOf(groups.flat());
        expect(merged.summary()).toEqual(all.summary());
        for (const p of [1, 50, 99, 100]) expect(merged.percentileMs(p)).toBe(all.percentileMs(p));
        expect(parts.map((p) => p.count)).toEqual(before);
      }),
      { numRuns: 100 },
    );
  });
  it("merges histograms that crossed the wire (agents' heartbeats) and keeps recording far beyond their range", () => {
    const rng = new Prng(7);
    const agentA = LatencyHistogram.create();
    const agentB = LatencyHistogram.create();
    for (let i = 0; i < 5000; i++) agentA.recordMs(rng.exponential(1 / 3)); // mean 3 ms
    for (let i = 0; i < 5000; i++) agentB.recordMs(20 + rng.exponential(1 / 5)); // a slower host
    const fleet = LatencyHistogram.merge([
      LatencyHistogram.decode(agentA.encode()),
      LatencyHistogram.decode(agentB.encode()),
    ]);
    expect(fleet.count).toBe(10_000);
    expect(fleet.percentileMs(25)).toBeLessThan(10);
    expect(fleet.percentileMs(75)).toBeGreaterThan(20);
    const decoded = LatencyHistogram.decode(agentA.encode());
    decoded.recordMs(3_600_000); // one hour: the decoded histogram grows instead of throwing
    expect(decoded.summary().maxMs).toBeGreaterThanOrEqual(3_600_000);
  });
  it("an empty histogram summarizes to zeros with count 0 (never NaN) and round-trips", () => {
    const empty = LatencyHistogram.create();
    const zeros = { count: 0, meanMs: 0, p50Ms: 0, p90Ms: 0, p95Ms: 0, p99Ms: 0, maxMs: 0 };
    expect(empty.summary()).toEqual(zeros);
    expect(LatencyHistogram.decode(empty.encode()).summary()).toEqual(zeros);
    const h = histogramOf([5]);
    h.reset();
    expect(h.summary()).toEqual(zeros);
  });
  it("bad input: negative or NaN latency, a percentile outside [0, 100], a non-integer count, a corrupt or oversized wire form", () => {
    const h = LatencyHistogram.create();
    const expectStats = (fn: () => unknown, parameter: string) => {
      try {
        fn();
      } catch (error) {
        expect(error).toBeInstanceOf(StatsInputError);
        expect((error as StatsInputError).parameter).toBe(parameter);
        return;
      }
      throw new Error(`expected a StatsInputError naming ${parameter}`);
    };
    expectStats(() => h.recordMs(-1), "latencyUs");
    expectStats(() => h.recordMs(Number.NaN), "latencyMs");
    expectStats(() => h.recordMs(1, 0.5), "count");
    expectStats(() => h.percentileMs(101), "percentile");
    expectStats(() => LatencyHistogram.decode("not base64!"), "encoded");
    expectStats(() => LatencyHistogram.decode(""), "encoded");
    expectStats(() => LatencyHistogram.decode("A".repeat(MAX_ENCODED_HISTOGRAM_LENGTH + 4)), "encoded");
    expect(h.count).toBe(0);
  });
});

describe("LatencyHistogram at the agents' interval precision (2 significant digits)", () => {
  const interval = (valuesMs: readonly number[]) => {
    const h = LatencyHistogram.create(INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS);
    for (const v of valuesMs) h.recordMs(v);
    return h;
  };
  it("a percentile is never below the exact one and at most 1/128 (+1 µs) above it, also over the wire and merged", () => {
    fc.assert(
      fc.property(latencies, latencies, fc.constantFrom(50, 90, 99, 99.9, 100), (a, b, p) => {
        const merged = LatencyHistogram.merge([
          LatencyHistogram.decode(interval(a).encode()),
          LatencyHistogram.decode(interval(b).encode()),
        ]);
        const got = merged.percentileMs(p);
        const want = exactPercentile([...a, ...b], p);
        expect(got).toBeGreaterThanOrEqual(want - 0.0005);
        expect(got - want).toBeLessThanOrEqual(want / 128 + 0.001);
        expect(got - want).toBeLessThan(want * 0.01 + 0.001);
      }),
      { numRuns: 200 },
    );
  });
  it("its encoding is smaller than 3 digits' for the same samples, and decodes at its own precision", () => {
    const random = new Prng(7);
    const samples = Array.from({ length: 1500 }, () => random.exponential(1 / 8));
    const coarse = interval(samples);
    expect(coarse.encode().length).toBeLessThan(histogramOf(samples).encode().length * 0.6);
    expect(LatencyHistogram.decode(coarse.encode()).significantDigits).toBe(INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS);
  });
  it("a merge is at the coarsest precision among its inputs (a fine part's samples land in the coarse buckets)", () => {
    const fine = histogramOf([10, 10.02, 10.04]);
    const coarse = interval([20]);
    const merged = LatencyHistogram.merge([fine, coarse]);
    expect(merged.significantDigits).toBe(INTERVAL_HISTOGRAM_SIGNIFICANT_DIGITS);
    expect(merged.count).toBe(4);
    // 10.00–10.04 ms share one 2-digit bucket (64 µs wide at 10 ms): the median is that bucket's top.
    expect(merged.percentileMs(50)).toBe(interval([10]).percentileMs(50));
    expect(LatencyHistogram.merge([fine]).significantDigits).toBe(HISTOGRAM_SIGNIFICANT_DIGITS);
  });
});
