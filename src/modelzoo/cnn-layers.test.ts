import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { conv, convBn, linear, relu6 } from "./cnn-layers";
import { GraphBuilder } from "./graph-builder";

afterAll(() => removeOrtDebugLog());

describe("CNN layers", () => {
  it("a depthwise stride-2 conv has weight [C, 1, k, k], halves 8×8 to 4×4, and ReLU6 clips to [0, 6]", async () => {
    const b = new GraphBuilder("g", 1);
    const x = b.input("x", "float32", ["batch", 4, 8, 8]);
    const y = convBn(b, x, "dw", "dw.bn", { cin: 4, cout: 4, kernel: 3, stride: 2, groups: 4 }, "relu6");
    b.output(y, "float32", ["batch", 4, 4, 4], "y");
    const bytes = b.toBytes({ producerVersion: "t" });
    expect(decodeOnnxModel(bytes).initializers.find((i) => i.name === "dw.weight")?.dims).toEqual([4, 1, 3, 3]);
    const s = await ort.InferenceSession.create(bytes);
    // Large inputs: BN passes ±1000·(small weights) → values beyond 6 and below 0 both occur, and all are clipped.
    const data = Float32Array.from({ length: 2 * 4 * 64 }, (_, i) => ((i * 37) % 17) * 1000 - 8000);
    const r = await s.run({ x: new ort.Tensor("float32", data, [2, 4, 8, 8]) });
    expect(r.y?.dims).toEqual([2, 4, 4, 4]);
    const out = r.y?.data as Float32Array;
    expect(out.every((v) => v >= 0 && v <= 6)).toBe(true);
    expect(out.some((v) => v === 6)).toBe(true);
    expect(out.some((v) => v === 0)).toBe(true);
  });

  it("ReLU6 is Clip with min 0 and max 6 given as inputs (opset ≥ 11)", async () => {
    const b = new GraphBuilder("g", 1);
    b.output(relu6(b, b.input("x", "float32", [4])), "float32", [4], "y");
    const s = await ort.InferenceSession.create(b.toBytes({ producerVersion: "t" }));
    const r = await s.run({ x: new ort.Tensor("float32", new Float32Array([-1, 0.5, 5.9, 7]), [4]) });
    expect(Array.from(r.y?.data as Float32Array)).toEqual([0, 0.5, Math.fround(5.9), 6]);
  });

  it("conv with bias adds a [C_out] bias; linear stores [out, in] and multiplies with transB", () => {
    const b = new GraphBuilder("g", 1);
    const x = b.input("x", "float32", ["batch", 3, 5, 5]);
    conv(b, x, "c", { cin: 3, cout: 6, kernel: 5, pad: 0, bias: true });
    linear(b, b.input("v", "float32", ["batch", 6]), "fc", 6, 2);
    const g = decodeOnnxModel(b.toBytes({ producerVersion: "t" }));
    expect(g.initializers.map((i) => [i.name, i.dims])).toEqual([
      ["c.weight", [6, 3, 5, 5]],
      ["c.bias", [6]],
      ["fc.weight", [2, 6]],
      ["fc.bias", [2]],
    ]);
    expect(g.nodes.find((n) => n.opType === "Gemm")?.attributes.transB).toEqual({ kind: "int", value: 1 });
  });
});
