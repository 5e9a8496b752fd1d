import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  NO_VALUE,
  formatBytes,
  formatBytesExact,
  formatFixed,
  formatGB,
  formatGiB,
  formatMs,
  formatPercent,
  formatRate,
  formatSig,
  formatTimes,
} from "./format";

describe("planner number formatting", () => {
  it("Napkin Math 13.3's displays: 7,402.9 req/s (5 s.f.), ρ_max 67.5%, N+1 at 50.4%", () => {
    // 5,000 / 0.675407 = 7,402.93 → 5 significant figures.
    expect(formatRate(5000 / 0.675407)).toBe("7,402.9 req/s");
    expect(formatPercent(0.675407)).toBe("67.5%");
    // 5,000 / (283.43 × 35) = 0.50403
    expect(formatPercent(5000 / (283.43 * 35))).toBe("50.4%");
  });

  it("TV-068's displays: 131,072 B per token, 1.07 GB per 8,192-token sequence, 85.9 GB = 80 GiB", () => {
    expect(formatBytesExact(131_072)).toBe("131,072 B");
    expect(formatGB(131_072 * 8192)).toBe("1.07 GB");
    expect(formatGB(80 * 2 ** 30)).toBe("85.9 GB");
    expect(formatGiB(80 * 2 ** 30)).toBe("80 GiB");
  });

  it("significant figures keep small values readable and drop trailing zeros", () => {
    expect(formatSig(0.042973, 4)).toBe("0.04297");
    expect(formatSig(8.6, 4)).toBe("8.6");
    expect(formatSig(999.96, 4)).toBe("1,000");
    expect(formatMs(15.9229)).toBe("15.92 ms");
    expect(formatTimes(8.6 / 5.45)).toBe("1.578×");
    expect(formatFixed(-0.0001, 2)).toBe("0");
  });

  it("sizes pick a readable unit", () => {
    expect(formatBytes(512)).toBe("512 B");
    expect(formatBytes(307_200)).toBe("307 kB");
    expect(formatBytes(314_572_800)).toBe("315 MB");
    expect(formatBytes(50.6e9)).toBe("50.6 GB");
  });

  it("never prints NaN or Infinity", () => {
    for (const bad of [Number.NaN, Infinity, -Infinity, null, undefined]) {
      expect(formatSig(bad)).toBe(NO_VALUE);
      expect(formatMs(bad)).toBe(NO_VALUE);
      expect(formatPercent(bad)).toBe(NO_VALUE);
      expect(formatGB(bad)).toBe(NO_VALUE);
      expect(formatBytes(bad)).toBe(NO_VALUE);
      expect(formatTimes(bad)).toBe(NO_VALUE);
    }
  });

  it("property: a finite value prints as digits that read back within its rounding", () => {
    fc.assert(
      fc.property(fc.double({ min: -1e12, max: 1e12, noNaN: true }), (x) => {
        const text = formatSig(x, 4);
        expect(text).not.toMatch(/NaN|Infinity/);
        const back = Number(text.replace(/,/g, ""));
        expect(Math.abs(back - x)).toBeLessThanOrEqual(Math.abs(x) * 5e-4 + 1e-300);
      }),
      { numRuns: 200 },
    );
  });
});
