import { afterAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { analyzeOnnxBytes } from "./analyze-model";
import { OnnxFileError } from "./decode-model";
import { removeOrtDebugLog } from "./ort-debug-log";
import { DataType, onnx } from "./proto";

afterAll(() => removeOrtDebugLog());

function counted(a: Awaited<ReturnType<typeof analyzeOnnxBytes>>) {
  if (a.flops.status !== "counted") throw new Error(`FLOPs unavailable: ${a.flops.message}`);
  return a.flops;
}

/** y = op(x) with x [batch, 4] float32, one node: enough to check how an unrunnable model is reported. */
function oneNodeModel(opType: string, domain = "", opsets = [{ domain: "", version: 17 }]): Uint8Array {
  const info = (name: string) => ({
    name,
    type: { tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimParam: "batch" }, { dimValue: 4 }] } } },
  });
  return onnx.ModelProto.encode({
    irVersion: 8,
    opsetImport: opsets,
    graph: { input: [info("x")], output: [info("y")], node: [{ opType, domain, input: ["x"], output: ["y"] }] },
  }).finish();
}

describe("analyzeOnnxBytes (decode, run once at batch 1 in a child, count)", () => {
  it("tiny MLP: 34,048 FLOPs per sample = 2 × (64·128 + 128·64 + 64·10) = 2 × 17,024", async () => {
    const a = await analyzeOnnxBytes(zooEntry("tiny-mlp").build());
    expect(counted(a).perSample.total).toBe(34_048);
    expect(a.summary.parameters.parameters).toBe(17_226);
    expect(a.summary.syntheticWeights).toBe(true);
    expect(a.summary.dynamicDims.mustFix).toEqual([]);
    expect(counted(a).inputs).toEqual([{ name: "input", dataType: "float32", shape: [1, 64] }]);
  }, 30_000);

  it("tiny CNN: 1,044,800 FLOPs per sample (442,368 + 8,192 + 589,824 + 4,096 + 320, see flops.test.ts)", async () => {
    const a = await analyzeOnnxBytes(zooEntry("tiny-cnn").build());
    const f = counted(a);
    expect(f.perSample.total).toBe(1_044_800);
    expect(f.perSample.notCounted.map((o) => o.opType).sort()).toEqual([
      "BatchNormalization",
      "Flatten",
      "Identity",
      "Relu",
    ]);
    expect(f.perSample.unresolved).toEqual([]);
  }, 30_000);

  it("tiny transformer at its default sequence 16: 983,040 FLOPs per sample", async () => {
    // Per layer at S = 16, d = 32, 2 heads of 16:
    //   c_attn 2·16·32·96 = 98,304; Q·Kᵀ 2·2·16·16·16 = 16,384; A·V 16,384; c_proj 2·16·32·32 = 32,768;
    //   c_fc 2·16·32·128 = 131,072; mlp c_proj 131,072  → 425,984; two layers 851,968.
    // LM head (tied Gemm) 2·16·32·128 = 131,072.  Total 983,040.
    const a = await analyzeOnnxBytes(zooEntry("tiny-transformer").build());
    expect(a.summary.dynamicDims.mustFix).toEqual(["sequence"]);
    expect(a.dimValues).toEqual({ sequence: 16 });
    expect(counted(a).perSample.total).toBe(983_040);
    expect(counted(a).inputs[0]?.shape).toEqual([1, 16]);
  }, 30_000);

  it("tiny transformer with sequence fixed at 8 by the caller: 475,136 FLOPs", async () => {
    // Per layer at S = 8: 49,152 + 4,096 + 4,096 + 16,384 + 65,536 + 65,536 = 204,800; ×2 = 409,600; head 65,536.
    const a = await analyzeOnnxBytes(zooEntry("tiny-transformer").build(), { dims: { sequence: 8 } });
    expect(counted(a).perSample.total).toBe(475_136);
  }, 30_000);

  it("a model with a dynamic dimension and no value for it: FLOPs unavailable, the dimension named", async () => {
    const bytes = onnx.ModelProto.encode({
      irVersion: 8,
      opsetImport: [{ domain: "", version: 17 }],
      graph: {
        input: [
          {
            name: "x",
            type: {
              tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimParam: "batch" }, { dimParam: "width" }] } },
            },
          },
        ],
        output: [{ name: "y" }],
        node: [{ opType: "Relu", input: ["x"], output: ["y"] }],
      },
    }).finish();
    const a = await analyzeOnnxBytes(bytes);
    expect(a.flops).toMatchObject({ status: "unavailable", code: "UNFIXED_DIMS" });
    expect(a.flops.status === "unavailable" && a.flops.message).toMatch(/width/);
    expect(a.summary.dynamicDims.mustFix).toEqual(["width"]);
  }, 30_000);

  it("an operator ONNX Runtime does not have: a clear message naming it, no crash", async () => {
    const custom = await analyzeOnnxBytes(
      oneNodeModel("Frobnicate", "com.example", [
        { domain: "", version: 17 },
        { domain: "com.example", version: 1 },
      ]),
    );
    expect(custom.flops).toMatchObject({
      status: "unavailable",
      code: "UNSUPPORTED_OPERATOR",
      operator: "com.example:Frobnicate",
    });
    // Gelu joined ONNX at opset 20: at opset 17 ONNX Runtime has no such operator.
    const early = await analyzeOnnxBytes(oneNodeModel("Gelu"));
    expect(early.flops).toMatchObject({ status: "unavailable", code: "UNSUPPORTED_OPERATOR", operator: "Gelu" });
    expect(early.summary.operators).toEqual([{ opType: "Gelu", domain: "", nodes: 1 }]);
  }, 30_000);

  it("a model with external data: parameters still counted, FLOPs refused with a message", async () => {
    const bytes = onnx.ModelProto.encode({
      irVersion: 8,
      opsetImport: [{ domain: "", version: 17 }],
      graph: {
        input: [
          {
            name: "x",
            type: {
              tensorType: { elemType: DataType.FLOAT, shape: { dim: [{ dimParam: "batch" }, { dimValue: 1000 }] } },
            },
          },
        ],
        output: [{ name: "y" }],
        initializer: [
          {
            name: "w",
            dims: [1000],
            dataType: DataType.FLOAT,
            dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
            externalData: [{ key: "location", value: "w.bin" }],
          },
        ],
        node: [{ opType: "Mul", input: ["x", "w"], output: ["y"] }],
      },
    }).finish();
    const a = await analyzeOnnxBytes(bytes);
    expect(a.summary.parameters.parameters).toBe(1000);
    expect(a.summary.externalData).toBe(true);
    expect(a.flops).toMatchObject({ status: "unavailable", code: "EXTERNAL_DATA" });
    expect(a.flops.status === "unavailable" && a.flops.message).toMatch(/external data/);
  }, 30_000);

  it("bytes that are not ONNX: a typed error before anything runs", async () => {
    await expect(analyzeOnnxBytes(new TextEncoder().encode("hello"))).rejects.toBeInstanceOf(OnnxFileError);
  });
});
