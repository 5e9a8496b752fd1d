import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { logGamma, poissonCdf, poissonPmf, poissonQuantile, poissonSurvival } from "./poisson";

/** Direct CDF sum e^(−m) Σ m^j / j!, independent of the implementation (fine for m ≤ 700). */
function directCdf(k: number, m: number): number {
  let term = Math.exp(-m);
  let sum = term;
  for (let j = 1; j <= k; j++) {
    term *= m / j;
    sum += term;
  }
  return sum;
}

function directQuantile(p: number, m: number): number {
  let k = 0;
  while (directCdf(k, m) < p) k++;
  return k;
}

describe("Poisson helpers (Eq. 9, Eq. 12)", () => {
  it("ln Γ matches factorials: ln Γ(1) = 0, ln Γ(11) = ln 3,628,800", () => {
    expect(logGamma(1)).toBeCloseTo(0, 13);
    expect(logGamma(11)).toBeCloseTo(Math.log(3_628_800), 12);
    expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 13);
  });

  it("TV-038: Poisson(5) CDF P(≤10) = 0.9863, P(≤11) = 0.9945, so the 0.99 quantile is 11", () => {
    expect(poissonCdf(10, 5).toFixed(4)).toBe("0.9863");
    expect(poissonCdf(11, 5).toFixed(4)).toBe("0.9945");
    expect(poissonQuantile(0.99, 5)).toBe(11);
  });

  it("TV-040: Poisson(6) CDF P(≤11) = 0.9799, P(≤12) = 0.9912, so the 0.99 quantile is 12", () => {
    expect(poissonCdf(11, 6).toFixed(4)).toBe("0.9799");
    expect(poissonCdf(12, 6).toFixed(4)).toBe("0.9912");
    expect(poissonQuantile(0.99, 6)).toBe(12);
  });

  it("TV-036: P(0) = e^(−0.5) = 0.6065; P(k ≥ 4 | mean 2) = 0.1429; P(k ≥ 20 | mean 10) = 0.003454", () => {
    expect(poissonPmf(0, 0.5).toFixed(4)).toBe("0.6065");
    expect(poissonSurvival(4, 2).toFixed(4)).toBe("0.1429");
    expect(poissonSurvival(20, 10).toPrecision(4)).toBe("0.003454");
  });

  it("cross-check: the quantile equals the smallest k of a direct CDF sum (property)", () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0, max: 200, noNaN: true }),
        fc.double({ min: 0.01, max: 0.9999, noNaN: true }),
        (mean, p) => {
          const k = poissonQuantile(p, mean);
          const direct = directQuantile(p, mean);
          // At an exact tie between p and a CDF value the two sums may round apart by one step; otherwise equal.
          if (k !== direct) expect(Math.abs(directCdf(Math.min(k, direct), mean) - p)).toBeLessThan(1e-12);
          else expect(k).toBe(direct);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("cross-check: CDF and pmf agree with the direct sum to 1e-12 for small means", () => {
    for (const m of [0.1, 0.5, 1, 2, 5, 6, 10, 50, 300]) {
      for (const k of [0, 1, 3, 7, Math.round(m), Math.round(m + 3 * Math.sqrt(m))]) {
        expect(poissonCdf(k, m)).toBeCloseTo(directCdf(k, m), 12);
      }
    }
    expect(poissonPmf(3, 2)).toBeCloseTo((Math.exp(-2) * 8) / 6, 15);
  });

  it("large means do not underflow: Poisson(10,000) 0.99 quantile ≈ m + 2.326·√m = 10,233", () => {
    // e^(−10,000) is 0 in a double, so a naive sum from k = 0 would never reach 0.99.
    const q = poissonQuantile(0.99, 10_000);
    expect(Math.abs(q - 10_233)).toBeLessThanOrEqual(2);
    expect(poissonCdf(q, 10_000)).toBeGreaterThanOrEqual(0.99);
    expect(poissonCdf(q - 1, 10_000)).toBeLessThan(0.99);
  });

  it("mean 0: all mass at 0", () => {
    expect(poissonCdf(0, 0)).toBe(1);
    expect(poissonQuantile(0.99, 0)).toBe(0);
    expect(poissonPmf(1, 0)).toBe(0);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => poissonCdf(3, -1)).toThrow(PlanningInputError);
    expect(() => poissonQuantile(1, 5)).toThrow(/^p:/);
    expect(() => poissonQuantile(0.5, Number.NaN)).toThrow(/^mean:/);
  });
});
