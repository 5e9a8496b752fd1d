import { describe, expect, it } from "vitest";
import { AttributeType, DataType, onnx } from "./proto";

describe("onnx-proto loading", () => {
  it("exposes the generated classes and ONNX's enum values (FLOAT = 1, INT64 = 7, INTS = 7)", () => {
    expect(DataType.FLOAT).toBe(1);
    expect(DataType.INT64).toBe(7);
    expect(AttributeType.INTS).toBe(7);
    expect(AttributeType.TENSOR).toBe(4);
  });
  it("round-trips a model through encode and decode", () => {
    const bytes = onnx.ModelProto.encode({
      irVersion: 8,
      producerName: "t",
      opsetImport: [{ domain: "", version: 17 }],
    }).finish();
    const back = onnx.ModelProto.decode(bytes);
    expect(back.producerName).toBe("t");
    expect(Number(back.irVersion)).toBe(8);
    expect(Number(back.opsetImport[0]?.version)).toBe(17);
  });
});
