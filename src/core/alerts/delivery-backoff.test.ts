import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { deliveryRetryDelayMs } from "./delivery-backoff";

describe("deliveryRetryDelayMs", () => {
  it("doubles from the base and stops at the cap: base 1 s, cap 30 s → 1, 2, 4, 8, 16, 30, 30 s", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((a) => deliveryRetryDelayMs(a, 1000, 30_000))).toEqual([
      1000, 2000, 4000, 8000, 16_000, 30_000, 30_000,
    ]);
  });

  it("never exceeds the cap and never shrinks from one attempt to the next, even at attempt 5000 (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        (a, base, extra) => {
          const cap = base + extra;
          const d = deliveryRetryDelayMs(a, base, cap);
          expect(Number.isFinite(d)).toBe(true);
          expect(d).toBeLessThanOrEqual(cap);
          expect(d).toBeGreaterThanOrEqual(base);
          expect(deliveryRetryDelayMs(a + 1, base, cap)).toBeGreaterThanOrEqual(d);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("refuses attempt 0, a zero base and a cap below the base, naming each", () => {
    expect(() => deliveryRetryDelayMs(0, 1000, 2000)).toThrow(/attempt/);
    expect(() => deliveryRetryDelayMs(1, 0, 2000)).toThrow(/baseMs/);
    expect(() => deliveryRetryDelayMs(1, 1000, 500)).toThrow(/maxMs/);
  });
});
