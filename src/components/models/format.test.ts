import { describe, expect, it } from "vitest";
import {
  formatBytes,
  formatCount,
  formatLimit,
  formatFlops,
  formatMs,
  formatShape,
  formatSlo,
  quantileLabel,
} from "./format";

describe("model page formats", () => {
  it("bytes in SI units: the tiny CNN (7,750 B), MobileNetV2 (14,192,512 B), ResNet-50 (102,473,298 B)", () => {
    // 7,750 / 1000 = 7.75 → "7.8 kB" (one decimal below 100); 14,192,512 / 10⁶ = 14.19 → "14.2 MB"; 102.47 → "102 MB".
    expect(formatBytes(7_750)).toBe("7.8 kB");
    expect(formatBytes(14_192_512)).toBe("14.2 MB");
    expect(formatBytes(102_473_298)).toBe("102 MB");
    expect(formatBytes(999)).toBe("999 B");
    expect(formatBytes(2_147_483_648)).toBe("2.1 GB");
    expect(formatBytes(Number.NaN)).toBe("—");
  });

  it("limits in the binary unit they were set in: 2 × 1024³ = 2,147,483,648 B → 2 GiB", () => {
    expect(formatLimit(2_147_483_648)).toBe("2 GiB");
    expect(formatLimit(64 * 1024 ** 2)).toBe("64 MiB");
    expect(formatLimit(4096)).toBe("4 KiB");
    expect(formatLimit(1500)).toBe("1.5 kB");
  });

  it("counts exact below 10,000, three significant digits above: 1,570; 3.50 M (MobileNetV2's 3,504,872)", () => {
    expect(formatCount(1_570)).toBe("1,570");
    expect(formatCount(3_504_872)).toBe("3.50 M");
    expect(formatCount(25_557_032)).toBe("25.6 M");
    expect(formatCount(124_439_808)).toBe("124 M");
    expect(formatCount(17_226)).toBe("17.2 k");
  });

  it("FLOPs per sample: the tiny CNN's 1,044,800 → 1.04 MFLOPs", () => {
    expect(formatFlops(1_044_800)).toBe("1.04 MFLOPs");
    expect(formatFlops(34_048)).toBe("34.0 kFLOPs");
    expect(formatFlops(4_089_184_256)).toBe("4.09 GFLOPs");
    expect(formatFlops(12)).toBe("12 FLOPs");
  });

  it("durations and quantiles", () => {
    expect(formatMs(3.456)).toBe("3.5 ms");
    expect(formatMs(250.4)).toBe("250 ms");
    expect(formatMs(1234)).toBe("1.23 s");
    expect(quantileLabel(0.99)).toBe("p99");
    expect(quantileLabel(0.999)).toBe("p99.9");
    expect(quantileLabel(0.5)).toBe("p50");
  });

  it("an SLO in one phrase, TTFT/TPOT only when set", () => {
    expect(formatSlo(null)).toBe("not set");
    expect(formatSlo({ deadlineMs: 50, quantile: 0.99, ttftMs: null, tpotMs: null })).toBe("p99 ≤ 50 ms");
    expect(formatSlo({ deadlineMs: 800, quantile: 0.95, ttftMs: 200, tpotMs: 25 })).toBe(
      "p95 ≤ 800 ms, TTFT ≤ 200 ms, TPOT ≤ 25 ms",
    );
  });

  it("shapes", () => {
    expect(formatShape(["batch", 3, 224, 224])).toBe("[batch, 3, 224, 224]");
    expect(formatShape([null, 4])).toBe("[?, 4]");
    expect(formatShape(null)).toBe("unknown rank");
  });
});
