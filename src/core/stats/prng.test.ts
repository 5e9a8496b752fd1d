import { describe, expect, it } from "vitest";
import { StatsInputError } from "./errors";
import { Prng, splitmix32 } from "./prng";

/** xoshiro128** again, in BigInt arithmetic straight from the reference C, to check the Math.imul version. */
function referenceXoshiro(seed: [number, number, number, number], n: number): number[] {
  const M = 0xffffffffn;
  const rotl = (x: bigint, k: bigint) => ((x << k) | (x >> (32n - k))) & M;
  const s = seed.map(BigInt) as [bigint, bigint, bigint, bigint];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    out.push(Number((rotl((s[1] * 5n) & M, 7n) * 9n) & M));
    const t = (s[1] << 9n) & M;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 11n);
  }
  return out;
}

describe("Prng (xoshiro128**)", () => {
  it("first output from state (1, 2, 3, 4) is rotl(2 × 5, 7) × 9 = 1280 × 9 = 11,520", () => {
    expect(Prng.fromState([1, 2, 3, 4]).nextUint32()).toBe(11520);
  });
  it("matches a BigInt transcription of the reference C for 1,000 outputs from several states", () => {
    for (const state of [
      [1, 2, 3, 4],
      [0xdeadbeef, 0x12345678, 0xffffffff, 7],
      [0, 0, 0, 1],
    ] as Array<[number, number, number, number]>) {
      const g = Prng.fromState(state);
      expect(Array.from({ length: 1000 }, () => g.nextUint32())).toEqual(referenceXoshiro(state, 1000));
    }
  });
  it("is deterministic per seed and differs across seeds", () => {
    const draw = (seed: number) => {
      const g = new Prng(seed);
      return Array.from({ length: 8 }, () => g.nextUint32());
    };
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    expect(splitmix32(0)[1]).toBe(0x9e3779b9);
  });
  it("uniform() lies in (0, 1) with mean ½ and variance 1/12 (200,000 draws; tolerances ≈ 5σ)", () => {
    const g = new Prng(1);
    const n = 200_000;
    let sum = 0;
    let sumSq = 0;
    for (let i = 0; i < n; i++) {
      const u = g.uniform();
      expect(u > 0 && u < 1).toBe(true);
      sum += u;
      sumSq += u * u;
    }
    const mean = sum / n;
    expect(Math.abs(mean - 0.5)).toBeLessThan(5 * Math.sqrt(1 / 12 / n));
    expect(Math.abs(sumSq / n - mean * mean - 1 / 12)).toBeLessThan(0.002);
  });
  it("int(10) is uniform over 0…9: chi-square on 100,000 draws below the 99.9% point 27.88 (9 dof)", () => {
    const g = new Prng(2);
    const counts = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) counts[g.int(10)]!++;
    const chi2 = counts.reduce((s, c) => s + (c - 10_000) ** 2 / 10_000, 0);
    expect(chi2).toBeLessThan(27.88);
  });
  it("normal(): mean 0, variance 1, 95% within ±1.96 (200,000 draws)", () => {
    const g = new Prng(3);
    const n = 200_000;
    let sum = 0;
    let sumSq = 0;
    let inside = 0;
    for (let i = 0; i < n; i++) {
      const z = g.normal();
      sum += z;
      sumSq += z * z;
      if (Math.abs(z) < 1.959964) inside++;
    }
    expect(Math.abs(sum / n)).toBeLessThan(5 / Math.sqrt(n));
    expect(Math.abs(sumSq / n - 1)).toBeLessThan(0.02);
    expect(Math.abs(inside / n - 0.95)).toBeLessThan(0.003);
    expect(new Prng(3).normal(10, 2)).toBeCloseTo(10 + 2 * new Prng(3).normal(), 12);
  });
  it("exponential(rate): mean 1/rate and P(X > mean) = e^(−1) = 0.3679 (200,000 draws)", () => {
    const g = new Prng(4);
    const n = 200_000;
    const rate = 2.5;
    let sum = 0;
    let above = 0;
    for (let i = 0; i < n; i++) {
      const x = g.exponential(rate);
      sum += x;
      if (x > 1 / rate) above++;
    }
    expect(Math.abs((sum / n) * rate - 1)).toBeLessThan(0.012);
    expect(Math.abs(above / n - Math.exp(-1))).toBeLessThan(0.006);
  });
  it("bad input names the parameter", () => {
    expect(() => new Prng(-1)).toThrow(StatsInputError);
    expect(() => new Prng(1.5)).toThrow(/^seed:/);
    expect(() => new Prng(1).exponential(0)).toThrow(/^rate:/);
    expect(() => new Prng(1).int(0)).toThrow(/^n:/);
    expect(() => Prng.fromState([0, 0, 0, 0])).toThrow(/^state:/);
  });
});
