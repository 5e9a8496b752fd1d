import { describe, expect, it } from "vitest";
import { DataType, onnx } from "./proto";
import { readFloatInitializers } from "./read-weights";

describe("readFloatInitializers", () => {
  it("reads raw_data at an odd offset and float_data alike, and skips non-float tensors", () => {
    // A 1-byte doc string before the graph puts raw_data at an offset that is not a multiple of 4.
    const raw = new Float32Array([1.5, -2, 3.25]);
    const bytes = onnx.ModelProto.encode({
      irVersion: 8,
      docString: "x",
      opsetImport: [{ domain: "", version: 17 }],
      graph: {
        initializer: [
          { name: "raw", dims: [3], dataType: DataType.FLOAT, rawData: new Uint8Array(raw.buffer) },
          { name: "listed", dims: [2], dataType: DataType.FLOAT, floatData: [0.5, 4] },
          { name: "shape", dims: [1], dataType: DataType.INT64, int64Data: [7] },
        ],
      },
    }).finish();
    const w = readFloatInitializers(bytes);
    expect([...(w.get("raw")?.values ?? [])]).toEqual([1.5, -2, 3.25]);
    expect(w.get("raw")?.dims).toEqual([3]);
    expect([...(w.get("listed")?.values ?? [])]).toEqual([0.5, 4]);
    expect(w.has("shape")).toBe(false);
  });
});
