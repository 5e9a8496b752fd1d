import { describe, expect, it } from "vitest";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { onnx } from "@/lib/onnx/proto";
import { readFloatInitializers } from "@/lib/onnx/read-weights";
import { ModelZooError } from "./errors";
import { attr, GraphBuilder } from "./graph-builder";

function sample(): Uint8Array {
  const b = new GraphBuilder("g", 1);
  const x = b.input("x", "float32", ["batch", 4]);
  const w = b.normal("w", [4, 3]);
  const y = b.op("MatMul", [x, w]);
  const r = b.op("Reshape", [y, b.int64([0, 3])]);
  const r2 = b.op("Reshape", [r, b.int64([0, 3])]); // the same constant again: reused, not duplicated
  const s = b.op("Softmax", [r2], { axis: attr.int(-1) });
  b.output(s, "float32", ["batch", 3], "probs");
  b.variance("v", 16);
  return b.toBytes({ producerVersion: "t", metadata: { k: "v" } });
}

describe("GraphBuilder", () => {
  it("writes opset 17, IR 8, symbolic dims, metadata, and renames an output through Identity", () => {
    const g = decodeOnnxModel(sample());
    expect(g.opsets).toEqual([{ domain: "", version: 17 }]);
    expect(g.irVersion).toBe(8);
    expect(g.inputs[0]?.shape).toEqual(["batch", 4]);
    expect(g.outputs[0]?.name).toBe("probs");
    expect(g.nodes.at(-1)?.opType).toBe("Identity");
    expect(g.metadata).toEqual({ k: "v" });
  });

  it("sets every attribute's type (ONNX Runtime rejects untyped attributes)", () => {
    const model = onnx.ModelProto.decode(sample());
    const attributes = (model.graph?.node ?? []).flatMap((n) => n.attribute ?? []);
    expect(attributes.length).toBeGreaterThan(0);
    for (const a of attributes) expect(a.type).toBeGreaterThan(0);
  });

  it("keeps shape constants in Constant nodes, shared by value: initializers hold only weights", () => {
    const g = decodeOnnxModel(sample());
    expect(g.initializers.map((i) => i.name)).toEqual(["w", "v"]);
    expect(g.nodes.filter((n) => n.opType === "Constant")).toHaveLength(1);
  });

  it("draws BatchNormalization variances as 1 + |noise| (all ≥ 1) and weights as N(0, 0.02)", () => {
    const w = readFloatInitializers(sample());
    expect([...(w.get("v")?.values ?? [])].every((v) => v >= 1 && v < 1.2)).toBe(true);
    expect([...(w.get("w")?.values ?? [])].every((v) => Math.abs(v) < 0.2)).toBe(true);
  });

  it("refuses a name defined twice and a tensor whose values do not fit its dims, naming the parameter", () => {
    const b = new GraphBuilder("g", 1);
    b.input("x", "float32", [1]);
    expect(() => b.input("x", "float32", [1])).toThrow(ModelZooError);
    expect(() => b.tensor("t", [2, 2], new Float32Array(3))).toThrow(/values/);
  });
});
