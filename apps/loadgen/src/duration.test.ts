import { describe, expect, it } from "vitest";
import { formatDurationMs, parseDurationMs } from "./duration";
import { LoadgenInputError } from "./errors";

describe("parseDurationMs", () => {
  it("reads each unit: 1.5 s = 1500 ms, 2 m = 120 000 ms, 250 µs = 0.25 ms", () => {
    expect(parseDurationMs("d", "500ms")).toBe(500);
    expect(parseDurationMs("d", "1.5s")).toBe(1500);
    expect(parseDurationMs("d", "2m")).toBe(120_000);
    expect(parseDurationMs("d", "1h")).toBe(3_600_000);
    expect(parseDurationMs("d", "250us")).toBeCloseTo(0.25, 12);
  });

  it("takes the caller's unit for a bare number: 30 → 30 s, or 30 ms for a latency limit", () => {
    expect(parseDurationMs("d", "30")).toBe(30_000);
    expect(parseDurationMs("d", "30", "ms")).toBe(30);
  });

  it("rejects what is not a duration, naming the parameter", () => {
    for (const bad of ["", "s", "-1s", "1 day", "1e3s", "NaN"]) {
      expect(() => parseDurationMs("--duration", bad)).toThrow(LoadgenInputError);
    }
    try {
      parseDurationMs("--duration", "ten");
    } catch (error) {
      expect(error).toMatchObject({ code: "invalid_duration", parameter: "--duration" });
    }
  });
});

describe("formatDurationMs", () => {
  it("picks a readable unit", () => {
    expect(formatDurationMs(0.25)).toBe("250µs");
    expect(formatDurationMs(3.456)).toBe("3.46ms");
    expect(formatDurationMs(45.67)).toBe("45.7ms");
    expect(formatDurationMs(1500)).toBe("1.50s");
    expect(formatDurationMs(125_000)).toBe("2m 5s");
  });
});
