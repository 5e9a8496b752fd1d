import { describe, expect, it } from "vitest";
import { effectiveMinuteMs, PriceHistory, type PriceChange } from "./price-history";

const at = (iso: string) => new Date(`2026-12-01T${iso}Z`);
const ms = (iso: string) => at(iso).getTime();
let id = 0;
const change = (hardwareClass: string, time: string, hourlyUsd: number | null, demo = false): PriceChange => ({
  id: ++id,
  hardwareClass,
  hourlyUsd,
  demo,
  effectiveFrom: at(time),
});

describe("the price history", () => {
  // Class A: demo $0.17 from 10:00:20, $0.40 from 12:30:45, removed at 14:00:00, $0.50 from 15:00:00.
  // Class B: $2 from 11:00:00.
  const history = new PriceHistory([
    change("A", "12:30:45", 0.4),
    change("A", "10:00:20", 0.17, true),
    change("B", "11:00:00", 2),
    change("A", "14:00:00", null),
    change("A", "15:00:00", 0.5),
  ]);

  it("applies a change from the start of the minute it was made in (rollups are per minute)", () => {
    expect(effectiveMinuteMs(at("12:30:45"))).toBe(ms("12:30:00"));
    // The minute 10:00 is priced at the demo price set at 10:00:20; 09:59 had no price.
    expect(history.priceAt("A", ms("10:00:00"))).toEqual({ hourlyUsd: 0.17, demo: true });
    expect(history.priceAt("A", ms("09:59:00"))).toBeNull();
  });

  it("prices a minute at the latest change at or before it; none before the first, none after a removal", () => {
    expect(history.priceAt("A", ms("12:29:00"))?.hourlyUsd).toBe(0.17);
    expect(history.priceAt("A", ms("12:30:00"))?.hourlyUsd).toBe(0.4);
    expect(history.priceAt("A", ms("14:00:00"))).toBeNull();
    expect(history.priceAt("A", ms("14:59:00"))).toBeNull();
    expect(history.priceAt("A", ms("23:00:00"))?.hourlyUsd).toBe(0.5);
    expect(history.priceAt("B", ms("10:59:00"))).toBeNull();
    expect(history.priceAt("unknown", ms("23:00:00"))).toBeNull();
  });

  it("numbers the epochs as width_bucket does, one price per class in each", () => {
    // Thresholds across both classes, sorted: 10:00, 11:00, 12:30, 14:00, 15:00 → epochs 0 (before 10:00) … 5.
    expect(history.thresholds).toEqual(["10:00:00", "11:00:00", "12:30:00", "14:00:00", "15:00:00"].map(ms));
    expect([0, 1, 2, 3, 4, 5].map((e) => history.priceInEpoch("A", e)?.hourlyUsd ?? null)).toEqual([
      null,
      0.17,
      0.17,
      0.4,
      null,
      0.5,
    ]);
    expect([0, 1, 2, 3, 4, 5].map((e) => history.priceInEpoch("B", e)?.hourlyUsd ?? null)).toEqual([
      null,
      null,
      2,
      2,
      2,
      2,
    ]);
    expect(() => history.priceInEpoch("A", 6)).toThrow(RangeError);
  });

  it("two changes of a class in one minute: the later one wins for the whole minute; at one instant, the later written", () => {
    const h = new PriceHistory([change("C", "09:00:50", 0.3), change("C", "09:00:10", 0.2)]);
    expect(h.thresholds).toEqual([ms("09:00:00")]);
    expect(h.priceAt("C", ms("09:00:00"))?.hourlyUsd).toBe(0.3);
    const same = new PriceHistory([
      { ...change("D", "09:00:10", 0.7), id: 2 },
      { ...change("D", "09:00:10", 0.6), id: 1 },
    ]);
    expect(same.priceAt("D", ms("09:00:00"))?.hourlyUsd).toBe(0.7);
  });
});
