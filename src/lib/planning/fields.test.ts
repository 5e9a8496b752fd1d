import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultState, need, validateField, validateForm, type FormSpec, type NumberFieldSpec } from "./fields";

const deadline: NumberFieldSpec = {
  kind: "number",
  label: "Deadline",
  unit: "ms",
  default: "50",
  min: 0,
  minInclusive: false,
};
const spec = {
  deadline,
  headroom: { kind: "number", label: "Headroom", unit: "%", default: "30", min: 0, max: 500 },
  k: { kind: "number", label: "Failures survived", unit: "", default: "1", min: 0, integer: true },
  override: {
    kind: "number",
    label: "Per-replica rate",
    unit: "req/s",
    default: "",
    min: 0,
    minInclusive: false,
    optional: true,
  },
  model: {
    kind: "choice",
    label: "Model",
    default: "mm1",
    options: [
      { value: "mm1", label: "M/M/1" },
      { value: "md1", label: "M/D/1" },
    ],
  },
  windows: { kind: "list", label: "Windows", unit: "ms", default: "0, 2, 5", min: 0, maxItems: 4 },
  points: {
    kind: "pairs",
    label: "Profile",
    unit: "ms",
    default: "1:3.53, 4:3.63",
    names: ["batch", "ms"],
    minItems: 2,
  },
} as const satisfies FormSpec;

describe("number fields", () => {
  it("reads what people type: blanks, thousands separators, exponents", () => {
    expect(validateField(deadline, " 50 ")).toEqual({ ok: true, value: 50 });
    expect(validateField(spec.headroom, "5,000")).toMatchObject({ ok: false, message: "Headroom must be ≤ 500 %" });
    expect(validateField({ ...deadline, max: undefined }, "5,000")).toEqual({ ok: true, value: 5000 });
    expect(validateField(deadline, "1e3")).toEqual({ ok: true, value: 1000 });
    expect(validateField(deadline, ".5")).toEqual({ ok: true, value: 0.5 });
  });

  it("names the field and its unit in every refusal", () => {
    expect(validateField(deadline, "")).toEqual({ ok: false, message: "Deadline is required" });
    expect(validateField(deadline, "abc")).toEqual({ ok: false, message: "Deadline must be a number (in ms)" });
    expect(validateField(deadline, "0")).toEqual({ ok: false, message: "Deadline must be > 0 ms" });
    expect(validateField(deadline, "-3")).toEqual({ ok: false, message: "Deadline must be > 0 ms" });
    expect(validateField(spec.k, "1.5")).toEqual({ ok: false, message: "Failures survived must be a whole number" });
    expect(validateField(deadline, "1,2")).toMatchObject({ ok: false });
    expect(validateField(deadline, "Infinity")).toMatchObject({ ok: false });
    expect(validateField(deadline, "1e999")).toMatchObject({ ok: false });
    expect(validateField(deadline, "NaN")).toMatchObject({ ok: false });
  });

  it("an optional field accepts empty text as 'not given'", () => {
    expect(validateField(spec.override, "")).toEqual({ ok: true, value: undefined });
    expect(validateField(spec.override, "7040")).toEqual({ ok: true, value: 7040 });
  });

  it("property: any text either validates to a finite number inside the bounds or is refused with a message", () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.double().map(String), fc.integer().map(String)), (text) => {
        const r = validateField(deadline, text);
        if (r.ok) {
          expect(Number.isFinite(r.value)).toBe(true);
          expect(r.value).toBeGreaterThan(0);
        } else {
          expect(r.message).toMatch(/^Deadline /);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("choice, list and pairs fields", () => {
  it("a choice must be one of its options", () => {
    expect(validateField(spec.model, "md1")).toEqual({ ok: true, value: "md1" });
    expect(validateField(spec.model, "mg1")).toEqual({ ok: false, message: "Model: choose one of mm1, md1" });
  });

  it("a list splits on commas, semicolons and newlines, and names the bad item", () => {
    expect(validateField(spec.windows, "0, 2;5\n10")).toEqual({ ok: true, value: [0, 2, 5, 10] });
    expect(validateField(spec.windows, "0, x")).toEqual({
      ok: false,
      message: 'Windows: value 2 ("x") is not a number',
    });
    expect(validateField(spec.windows, "0, -1")).toEqual({
      ok: false,
      message: 'Windows: value 2 ("-1") must be ≥ 0 ms',
    });
    expect(validateField(spec.windows, "")).toEqual({ ok: false, message: "Windows needs at least 1 value" });
    expect(validateField(spec.windows, "1,2,3,4,5")).toEqual({
      ok: false,
      message: "Windows takes at most 4 values, got 5",
    });
  });

  it("pairs read x:y, x=y or 'x y', and refuse a malformed entry by its position", () => {
    expect(validateField(spec.points, "1:3.53, 4=3.63; 8 3.76")).toEqual({
      ok: true,
      value: [
        [1, 3.53],
        [4, 3.63],
        [8, 3.76],
      ],
    });
    expect(validateField(spec.points, "1:3.53, 4-3.63")).toEqual({
      ok: false,
      message: 'Profile: entry 2 ("4-3.63") must be batch:ms with both > 0',
    });
    expect(validateField(spec.points, "1:3.53")).toEqual({ ok: false, message: "Profile needs at least 2 values" });
  });
});

describe("whole forms", () => {
  it("the defaults validate, and each value has its type", () => {
    const v = validateForm(spec, defaultState(spec));
    expect(v.ok).toBe(true);
    expect(v.values).toEqual({
      deadline: 50,
      headroom: 30,
      k: 1,
      override: undefined,
      model: "mm1",
      windows: [0, 2, 5],
      points: [
        [1, 3.53],
        [4, 3.63],
      ],
    });
  });

  it("one bad field leaves the others valid, and need() returns null only for computations that use it", () => {
    const v = validateForm(spec, { ...defaultState(spec), headroom: "lots" });
    expect(v.ok).toBe(false);
    expect(v.errors).toEqual({ headroom: "Headroom must be a number (in %)" });
    expect(need(v.values, ["deadline", "k"])).toEqual({ deadline: 50, k: 1 });
    expect(need(v.values, ["deadline", "headroom"])).toBeNull();
    // An optional field left empty is present (as undefined), not missing.
    expect(need(v.values, ["override"])).toEqual({ override: undefined });
  });
});
