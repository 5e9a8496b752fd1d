import { describe, expect, it } from "vitest";
import { FuzzInputError, FuzzRandom } from "./fuzz-random";

describe("FuzzRandom", () => {
  it("replays: the same seed gives the same sequence of choices", () => {
    const draw = (r: FuzzRandom) => [
      r.intBetween(0, 100),
      r.chance(0.5),
      r.pick(["a", "b", "c"]),
      r.length(1000),
      r.unicode(20),
      r.bytes(8).toString("hex"),
    ];
    expect(draw(new FuzzRandom(42))).toEqual(draw(new FuzzRandom(42)));
    expect(draw(new FuzzRandom(42))).not.toEqual(draw(new FuzzRandom(43)));
  });

  it("intBetween stays in [low, high] and reaches both ends (600 draws over 6 values: P(miss an end) ≈ 2·(5/6)^600)", () => {
    const r = new FuzzRandom(7);
    const seen = new Set<number>();
    for (let i = 0; i < 600; i++) {
      const v = r.intBetween(-2, 3);
      expect(v >= -2 && v <= 3 && Number.isInteger(v)).toBe(true);
      seen.add(v);
    }
    expect([...seen].sort((a, b) => a - b)).toEqual([-2, -1, 0, 1, 2, 3]);
  });

  it("length is heavy-tailed: log-uniform on [1, max], so about half the draws are ≤ √max", () => {
    const r = new FuzzRandom(9);
    const draws = Array.from({ length: 2000 }, () => r.length(10_000));
    expect(Math.min(...draws)).toBeGreaterThanOrEqual(1);
    expect(Math.max(...draws)).toBeLessThanOrEqual(10_000);
    // P(length ≤ 100) = P(u·ln 10001 < ln 101) ≈ 0.501; 2000 draws: sd ≈ 0.011.
    const share = draws.filter((d) => d <= 100).length / draws.length;
    expect(share).toBeGreaterThan(0.45);
    expect(share).toBeLessThan(0.56);
  });

  it("unicode gives exactly n UTF-16 units, with surrogates, controls and bidi marks among them", () => {
    const r = new FuzzRandom(11);
    const text = Array.from({ length: 50 }, () => r.unicode(40)).join("");
    expect(text.length).toBe(2000);
    expect(/[\ud800-\udfff]/.test(text)).toBe(true);
    expect(/[\u0000-\u001f]/.test(text)).toBe(true);
    expect(/[\u202d\u202e\u200f]/.test(text)).toBe(true);
    expect(/[\u4e00-\u9fff]/.test(text)).toBe(true);
    for (let n = 0; n < 30; n++) expect(r.unicode(n).length).toBe(n);
  });

  it("names the parameter on bad input instead of returning NaN", () => {
    const r = new FuzzRandom(1);
    expect(() => r.intBetween(5, 4)).toThrow(FuzzInputError);
    expect(() => r.intBetween(0.5, 4)).toThrow(/high/);
    expect(() => r.pick([])).toThrow(/items/);
    expect(() => r.length(0)).toThrow(/max/);
  });
});
