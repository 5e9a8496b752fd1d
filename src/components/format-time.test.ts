import { describe, expect, it } from "vitest";
import { formatTime } from "./format-time";

describe("formatTime", () => {
  it("prints UTC to the second, whatever the zone", () => {
    expect(formatTime(new Date("2026-11-29T17:03:05.789Z"))).toBe("2026-11-29 17:03:05 UTC");
    expect(formatTime("2026-11-29T18:03:05+01:00")).toBe("2026-11-29 17:03:05 UTC");
  });
  it("prints a dash for nothing or an invalid date", () => {
    expect(formatTime(null)).toBe("—");
    expect(formatTime(undefined)).toBe("—");
    expect(formatTime("not a date")).toBe("—");
  });
});
