import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { decodeFloorMs } from "./decode";
import { GPT2_SMALL_DRAFT_FP16_BYTES, GPT2_XL, H100_SXM5 } from "./presets";
import { expectedTokensPerPass, speculativeDecoding } from "./speculative";

describe("Eq. 15 / TV-066: speculative decoding", () => {
  it("TV-066: γ = 4, α = 0.70 → E = (1 − 0.7⁵) / 0.3 = 2.7731 ('2.8')", () => {
    expect(expectedTokensPerPass(0.7, 4).toFixed(4)).toBe("2.7731");
  });

  it("TV-066: draft 4 × 248 MB / 3.35 TB/s = 0.2961 ms, verify 0.8955 ms → 0.4297 ms/token, speedup 2.084 ('2.1×')", () => {
    const draftStepMs = decodeFloorMs(GPT2_SMALL_DRAFT_FP16_BYTES, H100_SXM5.memoryBandwidthBytesPerS);
    const targetVerifyMs = decodeFloorMs(GPT2_XL.weightBytes.fp16!, H100_SXM5.memoryBandwidthBytesPerS);
    expect((4 * draftStepMs).toFixed(4)).toBe("0.2961");
    const s = speculativeDecoding({ acceptance: 0.7, draftTokens: 4, draftStepMs, targetVerifyMs });
    expect(s.timePerTokenMs.toFixed(4)).toBe("0.4297");
    expect(s.speedup.toFixed(3)).toBe("2.084");
  });

  it("TV-066 extra vectors: α = 0 → E = 1; α = 0.5, γ = 4 → 1.9375; α = 1 → γ + 1 = 5", () => {
    expect(expectedTokensPerPass(0, 4)).toBe(1);
    expect(expectedTokensPerPass(0.5, 4)).toBe(1.9375); // 1 + 0.5 + 0.25 + 0.125 + 0.0625
    expect(expectedTokensPerPass(1, 4)).toBe(5);
  });

  it("property: the closed form equals the sum Σ_{i=0..γ} α^i, and approaches γ + 1 as α → 1", () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 0.999, noNaN: true }), fc.integer({ min: 0, max: 16 }), (a, g) => {
        let sum = 0;
        for (let i = 0; i <= g; i++) sum += a ** i;
        expect(expectedTokensPerPass(a, g)).toBeCloseTo(sum, 9);
      }),
      { numRuns: 200 },
    );
    expect(expectedTokensPerPass(1 - 1e-9, 4)).toBeCloseTo(5, 6);
  });

  it("low acceptance makes it a net loss: α = 0.1 → speedup < 1", () => {
    expect(
      speculativeDecoding({ acceptance: 0.1, draftTokens: 4, draftStepMs: 0.074, targetVerifyMs: 0.8955 }).speedup,
    ).toBeLessThan(1);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => expectedTokensPerPass(1.1, 4)).toThrow(PlanningInputError);
    expect(() => expectedTokensPerPass(0.5, -1)).toThrow(/^draftTokens/);
    expect(() => speculativeDecoding({ acceptance: 0.7, draftTokens: 4, draftStepMs: 0.1, targetVerifyMs: 0 })).toThrow(
      /^targetVerifyMs/,
    );
  });
});
