import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { LoadgenInputError } from "./errors";
import { buildSchedule, interArrivalStats, naturalDurationMs, type Pattern } from "./schedule";

const options = { seed: 42, maxRequests: 1_000_000 };

function countIn(times: Float64Array, from: number, to: number): number {
  return times.filter((t) => t >= from && t < to).length;
}

describe("constant schedule", () => {
  it("100/s for 3 s: 300 arrivals at 0, 10, 20, … 2990 ms", () => {
    const { offsetsMs, truncated } = buildSchedule({ kind: "constant", rate: 100 }, { ...options, durationMs: 3000 });
    expect(offsetsMs.length).toBe(300);
    expect(truncated).toBe(false);
    offsetsMs.forEach((t, k) => expect(t).toBe(k * 10));
  });

  it("3/s for 1 s: exactly 3 arrivals (1000·k/3 is exact at k = 3, so no fourth at 999.99… ms)", () => {
    expect(
      Array.from(buildSchedule({ kind: "constant", rate: 3 }, { ...options, durationMs: 1000 }).offsetsMs),
    ).toEqual([0, 1000 / 3, 2000 / 3]);
  });

  it("property: rate r for d ms holds r·d/1000 arrivals (± 1) with equal gaps of 1000/r ms", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.5, max: 2000, noNaN: true }),
        fc.integer({ min: 1, max: 3000 }),
        (rate, durationMs) => {
          const { offsetsMs } = buildSchedule({ kind: "constant", rate }, { ...options, durationMs });
          if (Math.abs(offsetsMs.length - (rate * durationMs) / 1000) > 1) return false;
          for (let i = 1; i < offsetsMs.length; i++)
            if (Math.abs(offsetsMs[i]! - offsetsMs[i - 1]! - 1000 / rate) > 1e-6) return false;
          return offsetsMs.every((t) => t >= 0 && t < durationMs);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("Poisson schedule", () => {
  const poisson = (seed: number, durationMs = 100_000) =>
    buildSchedule({ kind: "poisson", rate: 200 }, { ...options, seed, durationMs }).offsetsMs;

  it("is a pure function of the seed", () => {
    expect(Array.from(poisson(7, 5000))).toEqual(Array.from(poisson(7, 5000)));
    expect(Array.from(poisson(8, 5000))).not.toEqual(Array.from(poisson(7, 5000)));
  });

  it("200/s for 100 s: about 20 000 arrivals (Poisson: σ = √20 000 ≈ 141, so within 4σ ≈ 566)", () => {
    expect(Math.abs(poisson(1).length - 20_000)).toBeLessThan(566);
  });

  it("exponential gaps: mean 1000/200 = 5 ms, CV ≈ 1, and P(gap > mean) ≈ e⁻¹ ≈ 0.368", () => {
    const times = poisson(3);
    const { meanMs, cv, count } = interArrivalStats(times);
    // The mean of ~20 000 exponential gaps has relative standard error 1/√20 000 ≈ 0.7%; the CV about the same.
    expect(meanMs).toBeGreaterThan(5 * 0.97);
    expect(meanMs).toBeLessThan(5 * 1.03);
    expect(cv).toBeGreaterThan(0.96);
    expect(cv).toBeLessThan(1.04);
    let above = 0;
    for (let i = 1; i < times.length; i++) if (times[i]! - times[i - 1]! > meanMs) above++;
    // Binomial(20 000, 0.368): σ ≈ 0.0034 as a fraction.
    expect(Math.abs(above / count - Math.exp(-1))).toBeLessThan(0.015);
  });

  it("a constant schedule's gaps have CV 0", () => {
    expect(
      interArrivalStats(buildSchedule({ kind: "constant", rate: 50 }, { ...options, durationMs: 2000 }).offsetsMs).cv,
    ).toBeCloseTo(0, 9);
  });
});

describe("bursts and steps", () => {
  it("on 1 s at 100/s, off 1 s at 0, for 5 s: 100 arrivals in each of [0,1), [2,3), [4,5) s and none between", () => {
    const { offsetsMs } = buildSchedule(
      { kind: "bursts", onRate: 100, offRate: 0, onMs: 1000, offMs: 1000, arrivals: "constant" },
      { ...options, durationMs: 5000 },
    );
    expect(offsetsMs.length).toBe(300);
    expect([0, 1, 2, 3, 4].map((s) => countIn(offsetsMs, s * 1000, (s + 1) * 1000))).toEqual([100, 0, 100, 0, 100]);
  });

  it("Poisson bursts with a background rate: on 500 ms at 400/s, off 500 ms at 40/s → about 200 and 20 per phase", () => {
    const { offsetsMs } = buildSchedule(
      { kind: "bursts", onRate: 400, offRate: 40, onMs: 500, offMs: 500, arrivals: "poisson" },
      { ...options, durationMs: 40_000 },
    );
    let on = 0;
    let off = 0;
    for (const t of offsetsMs) {
      if (t % 1000 < 500) on++;
      else off++;
    }
    // 40 cycles: on ≈ 40·200 = 8000 (σ ≈ 89), off ≈ 40·20 = 800 (σ ≈ 28).
    expect(Math.abs(on - 8000)).toBeLessThan(400);
    expect(Math.abs(off - 800)).toBeLessThan(120);
  });

  it("steps 50/s, 100/s, 200/s of 1 s each: 50 + 100 + 200 = 350 arrivals, per second as stepped", () => {
    const pattern: Pattern = {
      kind: "steps",
      steps: [
        { rate: 50, durationMs: 1000 },
        { rate: 100, durationMs: 1000 },
        { rate: 200, durationMs: 1000 },
      ],
      arrivals: "constant",
    };
    expect(naturalDurationMs(pattern)).toBe(3000);
    const { offsetsMs } = buildSchedule(pattern, { ...options, durationMs: 3000 });
    expect([0, 1, 2].map((s) => countIn(offsetsMs, s * 1000, (s + 1) * 1000))).toEqual([50, 100, 200]);
  });
});

describe("replay", () => {
  it("replays recorded times, `speed` times faster, cut at the duration", () => {
    const pattern: Pattern = { kind: "replay", timesMs: [0, 10, 10, 40, 100], speed: 2 };
    expect(Array.from(buildSchedule(pattern, { ...options, durationMs: 1000 }).offsetsMs)).toEqual([0, 5, 5, 20, 50]);
    expect(Array.from(buildSchedule(pattern, { ...options, durationMs: 20 }).offsetsMs)).toEqual([0, 5, 5]);
    expect(naturalDurationMs(pattern)).toBe(51);
  });

  it("rejects times that go back, naming the row", () => {
    expect(() =>
      buildSchedule({ kind: "replay", timesMs: [0, 5, 3], speed: 1 }, { ...options, durationMs: 100 }),
    ).toThrow(expect.objectContaining({ code: "invalid_pattern", parameter: "timesMs[2]" }));
  });
});

describe("bounds", () => {
  it("cuts at maxRequests and says so", () => {
    const s = buildSchedule({ kind: "constant", rate: 1000 }, { ...options, maxRequests: 10, durationMs: 1000 });
    expect(s.offsetsMs.length).toBe(10);
    expect(s.truncated).toBe(true);
  });

  it("property: every pattern gives nondecreasing times in [0, duration)", () => {
    const pattern = fc.oneof(
      fc.record({ kind: fc.constant("poisson" as const), rate: fc.double({ min: 1, max: 2000, noNaN: true }) }),
      fc.record({ kind: fc.constant("constant" as const), rate: fc.double({ min: 1, max: 2000, noNaN: true }) }),
      fc.record({
        kind: fc.constant("bursts" as const),
        onRate: fc.integer({ min: 0, max: 2000 }),
        offRate: fc.integer({ min: 0, max: 200 }),
        onMs: fc.integer({ min: 1, max: 500 }),
        offMs: fc.integer({ min: 0, max: 500 }),
        arrivals: fc.constantFrom("constant" as const, "poisson" as const),
      }),
    );
    fc.assert(
      fc.property(
        pattern,
        fc.integer({ min: 1, max: 3000 }),
        fc.integer({ min: 0, max: 1000 }),
        (p, durationMs, seed) => {
          const { offsetsMs } = buildSchedule(p, { seed, maxRequests: 100_000, durationMs });
          for (let i = 0; i < offsetsMs.length; i++) {
            if (offsetsMs[i]! < (i ? offsetsMs[i - 1]! : 0) || offsetsMs[i]! >= durationMs) return false;
          }
          return true;
        },
      ),
      { numRuns: 200 },
    );
  });

  it("rejects bad rates, durations and seeds with typed errors", () => {
    expect(() => buildSchedule({ kind: "constant", rate: -1 }, { ...options, durationMs: 10 })).toThrow(
      LoadgenInputError,
    );
    expect(() => buildSchedule({ kind: "constant", rate: Number.NaN }, { ...options, durationMs: 10 })).toThrow(
      expect.objectContaining({ parameter: "rate" }),
    );
    expect(() =>
      buildSchedule({ kind: "constant", rate: 1 }, { ...options, durationMs: Number.POSITIVE_INFINITY }),
    ).toThrow(expect.objectContaining({ parameter: "durationMs" }));
    expect(() => buildSchedule({ kind: "constant", rate: 1 }, { ...options, seed: 1.5, durationMs: 10 })).toThrow(
      expect.objectContaining({ parameter: "seed" }),
    );
    expect(() =>
      buildSchedule(
        { kind: "bursts", onRate: 1, offRate: 0, onMs: 0, offMs: 0, arrivals: "constant" },
        { ...options, durationMs: 10 },
      ),
    ).toThrow(expect.objectContaining({ parameter: "onMs" }));
    expect(() => interArrivalStats([1, 2])).toThrow(LoadgenInputError);
  });
});
