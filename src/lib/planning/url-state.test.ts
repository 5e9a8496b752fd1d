import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { FormSpec } from "./fields";
import { MAX_URL_VALUE_LENGTH, parseUrlState, serializeUrlState } from "./url-state";

const spec = {
  rate: { kind: "number", label: "Peak rate", unit: "req/s", default: "5000", min: 0 },
  model: {
    kind: "choice",
    label: "Model",
    default: "mm1",
    options: [
      { value: "mm1", label: "M/M/1" },
      { value: "md1", label: "M/D/1" },
    ],
  },
  windows: { kind: "list", label: "Windows", unit: "ms", default: "0, 2, 5" },
} as const satisfies FormSpec;

describe("planner state in the URL", () => {
  it("missing keys take their defaults; unknown keys are ignored", () => {
    expect(parseUrlState(spec, { rate: "700", utm: "x" })).toEqual({ rate: "700", model: "mm1", windows: "0, 2, 5" });
    expect(parseUrlState(spec, new URLSearchParams(""))).toEqual({ rate: "5000", model: "mm1", windows: "0, 2, 5" });
  });

  it("keeps an invalid value as typed, so the shared view shows the same message", () => {
    expect(parseUrlState(spec, new URLSearchParams("rate=-5&model=nope")).rate).toBe("-5");
    expect(parseUrlState(spec, new URLSearchParams("rate=-5&model=nope")).model).toBe("nope");
  });

  it("a repeated key takes its first value; an oversized value falls back to the default", () => {
    expect(parseUrlState(spec, new URLSearchParams("rate=1&rate=2")).rate).toBe("1");
    expect(parseUrlState(spec, { rate: ["3", "4"] }).rate).toBe("3");
    expect(parseUrlState(spec, { rate: "9".repeat(MAX_URL_VALUE_LENGTH + 1) }).rate).toBe("5000");
  });

  it("serializes every field in spec order, with the text encoded", () => {
    expect(serializeUrlState(spec, { rate: "500", model: "md1", windows: "0, 12" })).toBe(
      "rate=500&model=md1&windows=0%2C+12",
    );
  });

  it("property: serialize then parse gives back the same state for any text", () => {
    const text = fc.string({ maxLength: 60 });
    fc.assert(
      fc.property(text, text, text, (rate, model, windows) => {
        const state = { rate, model, windows };
        expect(parseUrlState(spec, new URLSearchParams(serializeUrlState(spec, state)))).toEqual(state);
      }),
      { numRuns: 200 },
    );
  });
});
