import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  logGamma,
  meanConfidenceInterval,
  meanConfidenceIntervalFromMoments,
  regularizedIncompleteBeta,
  studentTCdf,
  studentTQuantile,
} from "./confidence";
import { StatsInputError } from "./errors";
import { Prng } from "./prng";

// Critical values from the standard t table (the same to 10 decimals in R's qt and SciPy's t.ppf).
const table: Array<[p: number, df: number, t: number]> = [
  [0.975, 1, 12.7062047362],
  [0.975, 2, 4.3026527297],
  [0.975, 3, 3.1824463053],
  [0.975, 4, 2.7764451052],
  [0.975, 5, 2.5705818356],
  [0.975, 10, 2.228138852],
  [0.975, 20, 2.0859634473],
  [0.975, 30, 2.0422724563],
  [0.975, 60, 2.000297822],
  [0.975, 120, 1.979930405],
  [0.995, 1, 63.6567411629],
  [0.995, 5, 4.0321429836],
  [0.995, 10, 3.1692726726],
  [0.995, 30, 2.7499956536],
  [0.95, 1, 6.3137515147],
  [0.95, 5, 2.0150483733],
  [0.95, 10, 1.8124611228],
  [0.95, 30, 1.6972608866],
  [0.9, 3, 1.6377443537],
  [0.999, 5, 5.8934295314],
  [0.9995, 1, 636.6192487688],
  [0.9995, 10, 4.5868938587],
];

describe("Student t quantile", () => {
  for (const [p, df, t] of table) {
    it(`t table: t(${p}, ν = ${df}) = ${t}`, () => {
      expect(studentTQuantile(p, df)).toBeCloseTo(t, 8);
      expect(studentTQuantile(1 - p, df)).toBeCloseTo(-t, 8);
    });
  }
  it("tends to the normal quantile 1.959964 as ν grows (ν = 10⁶ → 1.9599664)", () => {
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(1.9599663568, 7);
  });
  it("inverts the CDF for any ν > 0 (fractional ν too, as Welch's test produces)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-4, max: 1 - 1e-4, noNaN: true }),
        fc.double({ min: 0.5, max: 500, noNaN: true }),
        (p, df) => {
          const t = studentTQuantile(p, df);
          expect(Number.isFinite(t)).toBe(true);
          expect(studentTCdf(t, df)).toBeCloseTo(p, 10);
        },
      ),
      { numRuns: 200 },
    );
  });
  it("the CDF matches a Simpson integration of the density (brute force) for ν ∈ {1, 3, 7.5, 30}", () => {
    for (const df of [1, 3, 7.5, 30]) {
      const logC = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
      const density = (x: number) => Math.exp(logC - ((df + 1) / 2) * Math.log1p((x * x) / df));
      for (const t of [0.3, 1, 2.5]) {
        const n = 20_000; // P(T ≤ t) = ½ + ∫₀ᵗ f
        const h = t / n;
        let s = density(0) + density(t);
        for (let i = 1; i < n; i++) s += (i % 2 === 1 ? 4 : 2) * density(i * h);
        expect(studentTCdf(t, df)).toBeCloseTo(0.5 + (s * h) / 3, 10);
      }
    }
  });
  it("ν = 1 is the Cauchy distribution: quantile tan(π(p − ½))", () => {
    for (const p of [0.6, 0.75, 0.9, 0.99])
      expect(studentTQuantile(p, 1)).toBeCloseTo(Math.tan(Math.PI * (p - 0.5)), 9);
  });
});

describe("special functions", () => {
  it("ln Γ: ln Γ(½) = ln √π = 0.5723649429, ln Γ(10) = ln 9! = 12.8018274801", () => {
    expect(logGamma(0.5)).toBeCloseTo(0.5723649429247, 12);
    expect(logGamma(10)).toBeCloseTo(Math.log(362880), 12);
    expect(logGamma(1)).toBeCloseTo(0, 13);
  });
  it("I_½(2, 3) = P(Binomial(4, ½) ≥ 2) = 11/16; I_0.3(½, 2.5) = 0.79688934", () => {
    expect(regularizedIncompleteBeta(0.5, 2, 3)).toBeCloseTo(11 / 16, 13);
    expect(regularizedIncompleteBeta(0.3, 0.5, 2.5)).toBeCloseTo(0.7968893362799453, 12);
  });
});

describe("confidence interval of a mean", () => {
  it("1, 2, …, 10: mean 5.5, s = 3.02765, t(0.975, 9) = 2.262157 → 95% CI [3.334149, 7.665851]", () => {
    const ci = meanConfidenceInterval([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(ci.mean).toBe(5.5);
    expect(ci.standardDeviation).toBeCloseTo(3.0276503541, 9);
    expect(ci.tCritical).toBeCloseTo(2.2621571628, 9);
    expect(ci.lower).toBeCloseTo(3.3341494103, 9);
    expect(ci.upper).toBeCloseTo(7.6658505897, 9);
    expect(ci.relativeHalfWidth).toBeCloseTo(2.1658505897 / 5.5, 9);
  });
  it("the moment form equals the sample form, and a constant sample has zero width", () => {
    const samples = [12.1, 11.8, 12.4, 12.0, 11.9];
    const a = meanConfidenceInterval(samples, 0.99);
    const b = meanConfidenceIntervalFromMoments({
      count: a.count,
      mean: a.mean,
      standardDeviation: a.standardDeviation,
      confidence: 0.99,
    });
    expect(b).toEqual(a);
    expect(meanConfidenceInterval([3, 3, 3]).halfWidth).toBe(0);
    expect(meanConfidenceInterval([-1, 1]).relativeHalfWidth).toBeNull();
  });
  it("covers the true mean about 95% of the time (2,000 seeded samples of 10 normals: 95% ± 1.5%, ~3σ)", () => {
    const rng = new Prng(20260101);
    let covered = 0;
    const trials = 2000;
    for (let i = 0; i < trials; i++) {
      const sample = Array.from({ length: 10 }, () => rng.normal(100, 15));
      const ci = meanConfidenceInterval(sample);
      if (ci.lower <= 100 && 100 <= ci.upper) covered++;
    }
    expect(Math.abs(covered / trials - 0.95)).toBeLessThan(0.015);
  });
  it("bad input: fewer than 2 samples, a NaN sample, a confidence outside (0, 1), ν ≤ 0", () => {
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
    expectStats(() => meanConfidenceInterval([1]), "samples");
    expectStats(() => meanConfidenceInterval([1, 2, 3, Number.NaN]), "samples[3]");
    expectStats(() => meanConfidenceInterval([1, 2], 1), "confidence");
    expectStats(
      () => meanConfidenceIntervalFromMoments({ count: 5, mean: 1, standardDeviation: -1 }),
      "standardDeviation",
    );
    expectStats(() => studentTQuantile(0.975, 0), "degreesOfFreedom");
    expectStats(() => studentTQuantile(1, 3), "p");
    expectStats(() => studentTCdf(Number.POSITIVE_INFINITY, 3), "t");
  });
});
