import { afterAll, describe, expect, it } from "vitest";
import { analyzeOnnxBytes } from "./analyze-model";
import { removeOrtDebugLog } from "./ort-debug-log";
import { constantWeightsModel, dynamicImageModel, ifModel, quantizedModel, recurrentModel } from "./wild-models";

afterAll(() => removeOrtDebugLog());

function counted(a: Awaited<ReturnType<typeof analyzeOnnxBytes>>) {
  if (a.flops.status !== "counted") throw new Error(`FLOPs unavailable: ${a.flops.message}`);
  return a.flops.perSample;
}

// Each file is decoded here and run once by ONNX Runtime in the probe child; the arithmetic is in wild-models.ts.
describe("analysis of models shaped like third-party exports", () => {
  it("weights in Constant nodes: 144 parameters, 576 B, 256 FLOPs a sample", async () => {
    const a = await analyzeOnnxBytes(constantWeightsModel());
    expect(a.summary.parameters).toMatchObject({ parameters: 144, weightBytes: 576, constantNodes: 2 });
    expect(counted(a).total).toBe(256);
  }, 30_000);

  it("an If with weights in its branches: 64 parameters, the larger branch's 64 FLOPs", async () => {
    const a = await analyzeOnnxBytes(ifModel());
    // Top level: two int64 scalars (16 B, not parameters); branches: 2 × 32 floats = 256 B.
    expect(a.summary.parameters).toMatchObject({ parameters: 64, weightBytes: 16 + 256, inSubgraphs: 2 });
    expect(counted(a).total).toBe(64);
    expect(counted(a).upperBounds).toEqual(["branch"]);
  }, 30_000);

  it("a quantized model: 128 uint8 parameters at 1 B each, QLinearMatMul counted (256 FLOPs)", async () => {
    const a = await analyzeOnnxBytes(quantizedModel());
    // Bytes: B 128 + three float scales 12 + three uint8 zero points 3 = 143.
    expect(a.summary.parameters).toMatchObject({ parameters: 128, weightBytes: 143, quantizationParameters: 6 });
    expect(counted(a).total).toBe(256);
  }, 30_000);

  it("two dynamic image dimensions: both must be fixed; at 16×16, 56,320 FLOPs", async () => {
    const a = await analyzeOnnxBytes(dynamicImageModel());
    expect(a.summary.parameters.parameters).toBe(112);
    expect(a.summary.dynamicDims.mustFix).toEqual(["p2o.DynamicDimension.1", "p2o.DynamicDimension.2"]);
    expect(a.flops.status).toBe("unavailable");
    const fixed = await analyzeOnnxBytes(dynamicImageModel(), {
      dims: { "p2o.DynamicDimension.1": 16, "p2o.DynamicDimension.2": 16 },
    });
    expect(counted(fixed).total).toBe(56_320);
  }, 30_000);

  it("recurrent state [layers, batch, hidden]: 384 parameters", async () => {
    const a = await analyzeOnnxBytes(recurrentModel());
    expect(a.summary.parameters.parameters).toBe(384);
  }, 30_000);
});
