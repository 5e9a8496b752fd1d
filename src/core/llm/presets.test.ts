import { describe, expect, it } from "vitest";
import { GPT2_XL, H100_SXM5, LLAMA3_8B, LLAMA_70B_CLASS } from "./presets";

describe("LLM presets (digest §0.2)", () => {
  it("H100: 80 GiB datasheet = 85.9 GB decimal; ridge 989e12 / 3.35e12 = 295 FLOP/byte", () => {
    expect((H100_SXM5.memoryBytes / 1e9).toFixed(1)).toBe("85.9");
    expect(Math.round(H100_SXM5.fp16FlopsPerS / H100_SXM5.memoryBandwidthBytesPerS)).toBe(295);
    expect((H100_SXM5.fp8FlopsPerS / H100_SXM5.fp16FlopsPerS).toFixed(2)).toBe("2.00"); // 1,979 ≈ 2 × 989
  });

  it("GPT-2 XL: 25 heads × 64 = 1,600 hidden; FP8 weights are half the FP16 3 GB", () => {
    expect(GPT2_XL.queryHeads * GPT2_XL.headDim).toBe(GPT2_XL.hiddenSize);
    expect(GPT2_XL.weightBytes.fp8).toBe(GPT2_XL.weightBytes.fp16! / 2);
  });

  it("Llama 3 8B: 32 query heads × 128 = 4,096 hidden; 70B-class: 70.6e9 parameters × 4 bits = 35.3 GB", () => {
    expect(LLAMA3_8B.queryHeads * LLAMA3_8B.headDim).toBe(LLAMA3_8B.hiddenSize);
    expect(LLAMA_70B_CLASS.parameters * 0.5).toBeCloseTo(LLAMA_70B_CLASS.weightBytes.int4!, 0);
    expect(LLAMA_70B_CLASS.queryHeads * LLAMA_70B_CLASS.headDim).toBe(LLAMA_70B_CLASS.hiddenSize);
  });
});
