import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { float16Bits, float16Value, OIP_DATATYPES, readElement, writeElement, type OipDatatype } from "./oip-datatypes";

describe("float16Bits", () => {
  it("encodes IEEE 754 half-precision reference values", () => {
    // 1 = 2⁰ → exponent 15 (0x3c00); 0.5 → exponent 14 (0x3800); −2 → sign + exponent 16 (0xc000);
    // 65504 = (2 − 2⁻¹⁰)·2¹⁵ is the largest half (0x7bff); 2⁻¹⁴ the smallest normal (0x0400); 2⁻²⁴ the smallest subnormal (0x0001).
    expect(float16Bits(1)).toBe(0x3c00);
    expect(float16Bits(0.5)).toBe(0x3800);
    expect(float16Bits(-2)).toBe(0xc000);
    expect(float16Bits(65504)).toBe(0x7bff);
    expect(float16Bits(2 ** -14)).toBe(0x0400);
    expect(float16Bits(2 ** -24)).toBe(0x0001);
    expect(float16Bits(1e-9)).toBe(0);
    expect(float16Bits(1e6)).toBe(0x7c00);
    expect(float16Bits(-Infinity)).toBe(0xfc00);
    expect(Number.isNaN(float16Value(float16Bits(Number.NaN)))).toBe(true);
    // 1 + 2⁻¹¹ is halfway between 1 and 1 + 2⁻¹⁰: ties go to the even mantissa (1).
    expect(float16Bits(1 + 2 ** -11)).toBe(0x3c00);
    expect(float16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });

  it("property: every half value round-trips exactly through its bits", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0xffff }), (bits) => {
        const e = (bits >>> 10) & 0x1f;
        if (e === 0x1f && bits & 0x3ff) return true; // NaN payloads are not preserved
        return float16Bits(float16Value(bits)) === bits;
      }),
      { numRuns: 200 },
    );
  });

  it("property: rounding picks the nearer of the two neighbouring halves", () => {
    fc.assert(
      fc.property(fc.double({ min: -60000, max: 60000, noNaN: true }), (x) => {
        const y = float16Value(float16Bits(x));
        // Within half an ulp of the half grid: ulp = 2^(floor(log2|x|) − 10), at least 2⁻²⁴.
        const ulp = Math.max(2 ** -24, 2 ** (Math.floor(Math.log2(Math.abs(x) || 1)) - 10));
        return Math.abs(y - Math.fround(x)) <= ulp / 2 + 1e-12;
      }),
      { numRuns: 200 },
    );
  });
});

describe("writeElement / readElement", () => {
  it("round-trip every datatype little-endian", () => {
    const values: Record<OipDatatype, number> = {
      BOOL: 1,
      UINT8: 200,
      UINT16: 60_000,
      UINT32: 4e9,
      UINT64: 2 ** 40,
      INT8: -100,
      INT16: -30_000,
      INT32: -2e9,
      INT64: -(2 ** 40),
      FP16: 1.5,
      FP32: 0.25,
      FP64: Math.PI,
    };
    for (const [datatype, value] of Object.entries(values) as Array<[OipDatatype, number]>) {
      const view = new DataView(new ArrayBuffer(2 * OIP_DATATYPES[datatype].bytes));
      writeElement(view, datatype, 1, value);
      expect(readElement(view, datatype, 1)).toBe(value);
    }
    const view = new DataView(new ArrayBuffer(4));
    writeElement(view, "UINT32", 0, 0x01020304);
    expect(new Uint8Array(view.buffer)).toEqual(new Uint8Array([4, 3, 2, 1]));
  });
});
