import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadTestSpecSchema } from "@/contracts/agent-jobs";
import {
  describeSpec,
  LoadTestFormError,
  ninesOf,
  sloP99LimitMs,
  specFromForm,
  type LoadTestFormValues,
} from "./load-test-form-data";

const form = (over: Partial<LoadTestFormValues> = {}): LoadTestFormValues => ({
  mode: "open",
  pattern: "poisson",
  ratePerS: "20",
  fromRatePerS: "10",
  toRatePerS: "50",
  steps: "5",
  durationS: "30",
  binary: true,
  batch: "1",
  p99LimitMs: "50",
  startRatePerS: "10",
  maxRatePerS: "500",
  stepS: "5",
  ...over,
});

describe("specFromForm", () => {
  it("open: Poisson 20 requests/s for 30 s, binary, 1 row", () => {
    expect(specFromForm(form())).toEqual({
      mode: "open",
      pattern: "poisson",
      ratePerS: 20,
      durationS: 30,
      binary: true,
      batch: 1,
    });
  });

  it("ramp: 10 → 50 in 5 steps over 30 s", () => {
    expect(specFromForm(form({ mode: "ramp", pattern: "constant" }))).toEqual({
      mode: "ramp",
      arrivals: "constant",
      fromRatePerS: 10,
      toRatePerS: 50,
      steps: 5,
      durationS: 30,
      binary: true,
      batch: 1,
    });
  });

  it("search: p99 ≤ 50 ms from 10 up to 500 requests/s in 5 s steps", () => {
    expect(specFromForm(form({ mode: "search", binary: false, batch: "4" }))).toEqual({
      mode: "search",
      p99LimitMs: 50,
      startRatePerS: 10,
      maxRatePerS: 500,
      stepS: 5,
      binary: false,
      batch: 4,
    });
  });

  it("names the bad field: a text rate, a fractional batch, a duration past 600 s, a start above the maximum", () => {
    const field = (over: Partial<LoadTestFormValues>) => {
      try {
        specFromForm(form(over));
        return "accepted";
      } catch (e) {
        return (e as LoadTestFormError).field;
      }
    };
    expect(field({ ratePerS: "fast" })).toBe("ratePerS");
    expect(field({ batch: "1.5" })).toBe("batch");
    expect(field({ durationS: "601" })).toBe("durationS");
    expect(field({ ratePerS: "0" })).toBe("ratePerS");
    expect(field({ mode: "search", startRatePerS: "600" })).toBe("startRatePerS");
    expect(field({ mode: "ramp", steps: "1" })).toBe("steps");
  });

  it("whatever it accepts, the server's schema accepts too (property)", () => {
    const numText = fc.oneof(
      fc.integer({ min: -5, max: 2000 }).map(String),
      fc.double({ min: 0, max: 1000, noNaN: true }).map((x) => x.toFixed(2)),
      fc.constantFrom("", "x", "1e3"),
    );
    fc.assert(
      fc.property(
        fc.record({
          mode: fc.constantFrom("open" as const, "ramp" as const, "search" as const),
          pattern: fc.constantFrom("constant" as const, "poisson" as const),
          ratePerS: numText,
          fromRatePerS: numText,
          toRatePerS: numText,
          steps: numText,
          durationS: numText,
          binary: fc.boolean(),
          batch: numText,
          p99LimitMs: numText,
          startRatePerS: numText,
          maxRatePerS: numText,
          stepS: numText,
        }),
        (values) => {
          let spec;
          try {
            spec = specFromForm(values);
          } catch (e) {
            expect(e).toBeInstanceOf(LoadTestFormError);
            return;
          }
          expect(loadTestSpecSchema.safeParse(spec).success).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("describeSpec", () => {
  it("reads each mode in one line", () => {
    expect(
      describeSpec({ mode: "open", pattern: "poisson", ratePerS: 20, durationS: 30, binary: true, batch: 1 }),
    ).toBe("Poisson, 20 requests/s for 30 s · binary · 1 row per request");
    expect(
      describeSpec({
        mode: "ramp",
        arrivals: "constant",
        fromRatePerS: 10,
        toRatePerS: 50,
        steps: 5,
        durationS: 30,
        binary: false,
        batch: 2,
      }),
    ).toBe("ramp 10 → 50 requests/s in 5 steps over 30 s (constant) · JSON · 2 rows per request");
    expect(
      describeSpec({
        mode: "search",
        p99LimitMs: 50,
        startRatePerS: 10,
        maxRatePerS: 500,
        stepS: 5,
        binary: true,
        batch: 1,
      }),
    ).toBe("max rate with p99 ≤ 50 ms: 10 → ≤ 500 requests/s, 5 s steps · binary · 1 row per request");
  });
});

describe("ninesOf", () => {
  it("90 → 1, 99 → 2, 99.9 → 3 nines (−log10 of the share above it); 0 → 0; the maximum sits at the cap", () => {
    expect(ninesOf(90, 5)).toBeCloseTo(1, 12);
    expect(ninesOf(99, 5)).toBeCloseTo(2, 12);
    expect(ninesOf(99.9, 5)).toBeCloseTo(3, 9);
    expect(ninesOf(0, 5)).toBe(0);
    expect(ninesOf(100, 5)).toBe(5);
  });

  it("refuses a percentile outside [0, 100]", () => {
    expect(() => ninesOf(101, 5)).toThrow(LoadTestFormError);
  });
});

describe("sloP99LimitMs", () => {
  it("proposes the SLO's deadline only for a p99 SLO", () => {
    expect(sloP99LimitMs({ deadlineMs: 50, quantile: 0.99 })).toBe(50);
    expect(sloP99LimitMs({ deadlineMs: 50, quantile: 0.95 })).toBeNull();
    expect(sloP99LimitMs(null)).toBeNull();
  });
});
