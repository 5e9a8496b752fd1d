import { describe, expect, it } from "vitest";
import { costCsvTable, formatUsd } from "./cost-data";
import { parseCostParams, serializeCostParams } from "./cost-params";

describe("the cost page's URL", () => {
  it("round-trips period, filters, entered peaks, headroom, N+k and break-even", () => {
    const query = "period=30d&model=m1&hw=Xeon&peak.d1=120&headroom=1.6&k=2&beModel=m1&beA=Xeon&beB=T4&beCapB=400";
    const { input, problems } = parseCostParams(Object.fromEntries(new URLSearchParams(query)));
    expect(problems).toEqual([]);
    expect(input).toEqual({
      period: "30d",
      modelId: "m1",
      hardwareClass: "Xeon",
      peakPerS: { d1: 120 },
      headroomMultiplier: 1.6,
      redundancyK: 2,
      breakEven: { modelId: "m1", classA: "Xeon", classB: "T4", capacityB: 400 },
    });
    expect(parseCostParams(Object.fromEntries(new URLSearchParams(serializeCostParams(input)))).input).toEqual(input);
  });
  it("falls back to defaults and names what it ignored", () => {
    const { input, problems } = parseCostParams({ period: "year", headroom: "0.5", k: "many", "peak.d1": "-3" });
    expect(input.period).toBe("7d");
    expect(input.headroomMultiplier).toBe(1.3);
    expect(input.redundancyK).toBe(1);
    expect(input.peakPerS).toEqual({});
    expect(problems.join("; ")).toMatch(/N\+k: "many" is not a number/);
    expect(problems.join("; ")).toMatch(/headroom must be at least 1×/);
    expect(problems.some((p) => p.startsWith("period"))).toBe(true);
    expect(serializeCostParams(input)).toBe("");
  });
});

describe("cost formats and the CSV", () => {
  it("shows cents above a dollar and three significant figures below", () => {
    expect(formatUsd(1934.5)).toBe("$1,934.50");
    expect(formatUsd(0.36806)).toBe("$0.368");
    expect(formatUsd(null)).toBe("—");
  });
  it("has one row per deployed model, as wide as its header", () => {
    expect(costCsvTable([]).rows).toEqual([]);
    expect(costCsvTable([]).columns).toContain("cost per 1M inferences at capacity $");
  });
});

describe("the trend's axis", () => {
  it("spans the period in buckets with at most eight ticks, ending at the current bucket", async () => {
    const { trendAxis, roundForInput } = await import("./cost-data");
    const until = new Date("2026-12-01T14:26:00Z");
    const week = trendAxis(new Date(until.getTime() - 7 * 86_400_000), until, false);
    expect(week.domain).toEqual([Date.parse("2026-11-23T12:00:00Z"), Date.parse("2026-12-01T12:00:00Z")]);
    expect(week.ticks).toHaveLength(8); // every day
    const month = trendAxis(new Date(until.getTime() - 30 * 86_400_000), until, false);
    expect(month.ticks.length).toBeLessThanOrEqual(8);
    expect(month.ticks.at(-1)).toBe(Date.parse("2026-12-01T00:00:00Z"));
    const day = trendAxis(new Date(until.getTime() - 86_400_000), until, true);
    expect(day.ticks.length).toBeLessThanOrEqual(8);
    expect(new Set(day.ticks).size).toBe(day.ticks.length);
    expect(roundForInput(0.47819070790978724)).toBe(0.478);
  });
});
