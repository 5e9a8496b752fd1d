// Concatenation and slicing along any axis, checked against index arithmetic done element by element.
import { describe, expect, it } from "vitest";
import { concatRows, sliceRows } from "./tensor-rows";
import { typedView, type WireTensor } from "./tensor-types";

/** A float tensor whose element at (i, j, k…) holds `seed + its flat index`. */
function ramp(shape: number[], seed: number): WireTensor {
  const count = shape.reduce((a, b) => a * b, 1);
  return {
    name: "t",
    datatype: "FP32",
    shape,
    buffer: Float32Array.from({ length: count }, (_, i) => seed + i).buffer,
  };
}
const values = (t: WireTensor) => Array.from(typedView(t) as Float32Array);

describe("concatRows / sliceRows along a batch axis", () => {
  it("axis 1 of [2, b, 3]: layer-major state, each layer's rows from each part in order", () => {
    // a [2, 1, 3] = layer 0: 0 1 2; layer 1: 3 4 5. b [2, 2, 3] = layer 0: 100…105; layer 1: 106…111.
    // Concatenated [2, 3, 3]: layer 0 = a's row, then b's two rows; layer 1 likewise.
    const a = ramp([2, 1, 3], 0);
    const b = ramp([2, 2, 3], 100);
    const c = concatRows("h", [a, b], 1);
    expect(c.shape).toEqual([2, 3, 3]);
    expect(values(c)).toEqual([0, 1, 2, 100, 101, 102, 103, 104, 105, 3, 4, 5, 106, 107, 108, 109, 110, 111]);
    // Slicing back gives each part exactly.
    expect(values(sliceRows(c, 0, 1, 1))).toEqual(values(a));
    expect(values(sliceRows(c, 1, 2, 1))).toEqual(values(b));
    expect(sliceRows(c, 1, 2, 1).shape).toEqual([2, 2, 3]);
  });

  it("any axis: slice ∘ concat is the identity, element by element (brute force over shapes)", () => {
    for (const shape of [
      [3, 4],
      [2, 3, 4],
      [4, 1, 2, 3],
    ]) {
      for (let axis = 0; axis < shape.length; axis++) {
        const parts = [1, 2, 3].map((n, p) =>
          ramp(
            shape.map((d, i) => (i === axis ? n : d)),
            1000 * p,
          ),
        );
        const whole = concatRows("t", parts, axis);
        // Element (…, r, …) of the whole is element (…, r − start_p, …) of part p.
        const strides = whole.shape.map((_, i) => whole.shape.slice(i + 1).reduce((a, b) => a * b, 1));
        const w = values(whole);
        let start = 0;
        parts.forEach((part) => {
          const n = part.shape[axis]!;
          const pv = values(part);
          const pStrides = part.shape.map((_, i) => part.shape.slice(i + 1).reduce((a, b) => a * b, 1));
          for (let flat = 0; flat < pv.length; flat++) {
            const index = pStrides.map((s, i) => Math.floor(flat / s) % part.shape[i]!);
            index[axis]! += start;
            expect(w[index.reduce((sum, v, i) => sum + v * strides[i]!, 0)]).toBe(pv[flat]);
          }
          expect(values(sliceRows(whole, start, n, axis))).toEqual(pv);
          start += n;
        });
      }
    }
  });

  it("a slice that is the whole tensor is the tensor itself, along any axis; any other slice is a copy", () => {
    const t = ramp([2, 3, 4], 0);
    expect(sliceRows(t, 0, 2, 0)).toBe(t);
    expect(sliceRows(t, 0, 3, 1)).toBe(t);
    const part = sliceRows(t, 0, 2, 1);
    expect(part.buffer).not.toBe(t.buffer);
    expect(part.shape).toEqual([2, 2, 4]);
  });
});
