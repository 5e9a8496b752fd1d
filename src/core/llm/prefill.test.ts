import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { prefillFlops, prefillTimeMs } from "./prefill";
import { GPT2_XL, H100_SXM5, LLAMA3_8B } from "./presets";

describe("F-54 prefill time", () => {
  it("TV-062: GPT-2 XL 512-token prompt → 2 × 1.5e9 × 512 = 1.536 TFLOP; at 40% of 989 TFLOP/s = 3.883 ms ('3.9 ms')", () => {
    const flops = prefillFlops({ parameters: GPT2_XL.parameters, promptTokens: 512 });
    expect(flops).toBe(1.536e12);
    expect(prefillTimeMs(flops, H100_SXM5.fp16FlopsPerS).toFixed(3)).toBe("3.883");
  });

  it("§13.10.3: Llama 3 8B 1,000-token prompt with attention → 16.584 TFLOP → 41.92 ms ('41.9 ms'); 40.6 ms without", () => {
    // 2 × 8.03e9 × 1,000 = 16.06 TFLOP; 4 × 32 × 4,096 × 1,000² = 0.524 TFLOP.
    const withAttention = prefillFlops({
      parameters: LLAMA3_8B.parameters,
      promptTokens: 1000,
      attention: { layers: LLAMA3_8B.layers, hiddenSize: LLAMA3_8B.hiddenSize },
    });
    expect((withAttention / 1e12).toFixed(3)).toBe("16.584");
    expect(prefillTimeMs(withAttention, H100_SXM5.fp16FlopsPerS).toFixed(2)).toBe("41.92");
    const plain = prefillFlops({ parameters: LLAMA3_8B.parameters, promptTokens: 1000 });
    expect(prefillTimeMs(plain, H100_SXM5.fp16FlopsPerS).toFixed(1)).toBe("40.6");
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => prefillFlops({ parameters: 0, promptTokens: 10 })).toThrow(PlanningInputError);
    expect(() => prefillFlops({ parameters: 1e9, promptTokens: 1.5 })).toThrow(/^promptTokens/);
    expect(() => prefillTimeMs(1e12, 989e12, 0)).toThrow(/^efficiency/);
    expect(() => prefillTimeMs(1e12, 989e12, 1.2)).toThrow(/^efficiency/);
    expect(() => prefillTimeMs(0, 989e12)).toThrow(/^flops/);
  });
});
