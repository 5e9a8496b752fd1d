import { describe, expect, it } from "vitest";
import { elementTypeByName, elementTypeName, packedBytes } from "./dtypes";

describe("ONNX element types", () => {
  it("names the codes ONNX's TensorProto.DataType assigns: 1 FLOAT, 7 INT64, 10 FLOAT16, 16 BFLOAT16", () => {
    expect(elementTypeName(1)).toBe("float32");
    expect(elementTypeName(7)).toBe("int64");
    expect(elementTypeName(10)).toBe("float16");
    expect(elementTypeName(16)).toBe("bfloat16");
  });
  it("says 'undefined' for 0 and 'unknown(N)' for a code it does not know", () => {
    expect(elementTypeName(0)).toBe("undefined");
    expect(elementTypeName(99)).toBe("unknown(99)");
  });
  it("marks floating-point types (they count as parameters) and integer types (they do not)", () => {
    expect(elementTypeByName("float16")?.floatingPoint).toBe(true);
    expect(elementTypeByName("int64")?.floatingPoint).toBe(false);
  });
  it("packs sizes: 10 float32 = 40 B, 3 int4 = ceil(12 bits / 8) = 2 B, strings have no fixed size", () => {
    expect(packedBytes("float32", 10)).toBe(40);
    expect(packedBytes("int4", 3)).toBe(2);
    expect(packedBytes("string", 3)).toBeUndefined();
    expect(packedBytes("nonsense", 3)).toBeUndefined();
  });
});
