import { describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { decodeOnnxModel, OnnxFileError } from "./decode-model";
import { DataType, onnx } from "./proto";

describe("decodeOnnxModel", () => {
  it("reads the tiny transformer's interface, opset, IR version, producer and labels", () => {
    const g = decodeOnnxModel(zooEntry("tiny-transformer").build());
    expect(g.irVersion).toBe(8);
    expect(g.opsets).toEqual([{ domain: "", version: 17 }]);
    expect(g.producerName).toBe("packrat-modelzoo");
    expect(g.producerVersion).toBe("tiny-transformer@1");
    expect(g.inputs).toEqual([{ name: "input_ids", dataType: "int64", shape: ["batch", "sequence"] }]);
    expect(g.outputs).toEqual([{ name: "logits", dataType: "float32", shape: ["batch", "sequence", 128] }]);
    expect(g.metadata["packrat.weights"]).toBe("synthetic");
    expect(g.metadata["packrat.dim_defaults"]).toBe('{"sequence":16}');
    const ln = g.nodes.find((n) => n.opType === "LayerNormalization");
    expect(ln?.attributes.axis).toEqual({ kind: "int", value: -1 });
    expect(ln?.attributes.epsilon?.kind).toBe("float");
    const cos = g.nodes.find((n) => n.opType === "ConstantOfShape");
    expect(cos?.attributes.value).toMatchObject({ kind: "tensor", dataType: "float32", dims: [1] });
  });

  it("leaves initializers listed as graph inputs (IR < 4 style) out of the inputs; reads unnamed dims as null", () => {
    const bytes = onnx.ModelProto.encode({
      irVersion: 3,
      opsetImport: [{ domain: "", version: 9 }],
      graph: {
        input: [
          { name: "x", type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [{}, { dimValue: 4 }] } } } },
          { name: "w", type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimValue: 4 }] } } } },
        ],
        initializer: [{ name: "w", dims: [4], dataType: DataType.FLOAT, floatData: [1, 2, 3, 4] }],
        node: [{ opType: "Mul", input: ["x", "w"], output: ["y"] }],
        output: [{ name: "y" }],
      },
    }).finish();
    const g = decodeOnnxModel(bytes);
    expect(g.inputs).toEqual([{ name: "x", dataType: "float32", shape: [null, 4] }]);
    expect(g.outputs).toEqual([{ name: "y", dataType: "undefined", shape: null }]);
    expect(g.initializers).toEqual([{ name: "w", dataType: "float32", dims: [4], external: false, storedBytes: 16 }]);
  });

  it("marks external initializers and takes their stored size from external_data's length", () => {
    const bytes = onnx.ModelProto.encode({
      irVersion: 8,
      opsetImport: [{ domain: "", version: 17 }],
      graph: {
        initializer: [
          {
            name: "big",
            dims: [1000],
            dataType: DataType.FLOAT,
            dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
            externalData: [
              { key: "location", value: "weights.bin" },
              { key: "length", value: "4000" },
            ],
          },
        ],
      },
    }).finish();
    expect(decodeOnnxModel(bytes).initializers[0]).toMatchObject({ external: true, storedBytes: 4000 });
  });

  it.each([
    ["an empty file", new Uint8Array()],
    ["a PNG header", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])],
    ["JSON text", new TextEncoder().encode('{"model": "resnet50", "weights": [1, 2, 3]}')],
    ["random bytes", Uint8Array.from({ length: 256 }, (_, i) => (i * 97 + 31) % 256)],
  ])("refuses %s as not ONNX, naming the parameter", (_label, bytes) => {
    let caught: unknown;
    try {
      decodeOnnxModel(bytes);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OnnxFileError);
    expect((caught as OnnxFileError).code).toBe("NOT_ONNX");
    expect((caught as OnnxFileError).parameter).toBe("bytes");
  });
});
