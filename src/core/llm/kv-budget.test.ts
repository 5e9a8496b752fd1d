import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { checkKvFit, contextThatFits, kvBudgetBytes, sequencesThatFit } from "./kv-budget";
import { H100_SXM5, LLAMA3_8B, LLAMA_70B_CLASS } from "./presets";

const llama8b = {
  deviceBytes: H100_SXM5.memoryBytes,
  weightBytes: LLAMA3_8B.weightBytes.fp16!,
  bytesPerToken: 131_072,
};

describe("F-58 KV budget → concurrency", () => {
  it("KV budget: Llama 3 8B 131,072 bytes/token, ≈ 65 sequences at 8,192 tokens (TV-068)", () => {
    // 85.899 GB − 16.1 GB = 69.80 GB free; 69.80 / 1.0737 = 65.005 → 65 conversations.
    expect((kvBudgetBytes(llama8b) / 1e9).toFixed(1)).toBe("69.8");
    const fit = sequencesThatFit(llama8b, 8192);
    expect(fit.fits).toBe(true);
    if (!fit.fits) return;
    expect(fit.sequences).toBe(65);
    expect((fit.bytesPerSequence / 1e9).toFixed(2)).toBe("1.07");
    expect(fit.maxResidentTokens).toBe(Math.floor((80 * 2 ** 30 - 16.1e9) / 131_072));
  });

  it("Figure 8 / TV-069: 70B-class, 35.3 GB INT4 → 50.6 GB for KV; batch 32 runs out at 4,825 tokens ('4.8k')", () => {
    const input = {
      deviceBytes: H100_SXM5.memoryBytes,
      weightBytes: LLAMA_70B_CLASS.weightBytes.int4!,
      bytesPerToken: 327_680,
    };
    expect((kvBudgetBytes(input) / 1e9).toFixed(1)).toBe("50.6");
    const fit = contextThatFits(input, 32);
    expect(fit.fits).toBe(true);
    if (!fit.fits) return;
    expect(fit.contextTokens).toBe(4825); // 50.5993e9 / (32 × 327,680) = 4,825.4
    expect(Number(fit.contextTokens.toPrecision(2))).toBe(4800);
  });

  it("Figure 8: batch trades against context: doubling the batch halves the context that fits", () => {
    const input = {
      deviceBytes: H100_SXM5.memoryBytes,
      weightBytes: LLAMA_70B_CLASS.weightBytes.int4!,
      bytesPerToken: 327_680,
    };
    const at16 = contextThatFits(input, 16);
    const at32 = contextThatFits(input, 32);
    if (!at16.fits || !at32.fits) throw new Error("expected both to fit");
    expect(Math.abs(at16.contextTokens - 2 * at32.contextTokens)).toBeLessThanOrEqual(1);
  });

  it("beam width 4 cuts the sequences that fit by 4: floor(69.80 / (4 × 1.0737)) = 16", () => {
    const fit = sequencesThatFit({ ...llama8b, beamWidth: 4 }, 8192);
    expect(fit.fits && fit.sequences).toBe(16);
  });

  it("a workspace reserve comes off the budget: 10 GB reserve → floor(59.80 / 1.0737) = 55", () => {
    const fit = sequencesThatFit({ ...llama8b, workspaceBytes: 10e9 }, 8192);
    expect(fit.fits && fit.sequences).toBe(55);
  });

  it("does not fit: FP16 70B weights (141.2 GB) overflow an 85.9 GB H100, shortfall = 141.2 + cache − 85.9 GB", () => {
    const input = { deviceBytes: H100_SXM5.memoryBytes, weightBytes: 141.2e9, bytesPerToken: 327_680 };
    const fit = sequencesThatFit(input, 1000);
    expect(fit.fits).toBe(false);
    if (fit.fits) return;
    expect(fit.reason).toBe("weights-fill-memory");
    expect(fit.shortfallBytes).toBeCloseTo(141.2e9 + 327_680_000 - 80 * 2 ** 30, 0);
    expect(fit.budgetBytes).toBeLessThan(0);
  });

  it("does not fit: one 1M-token sequence (131 GB of cache) exceeds Llama 3 8B's 69.8 GB budget", () => {
    const fit = sequencesThatFit(llama8b, 1_000_000);
    expect(fit.fits).toBe(false);
    if (fit.fits) return;
    expect(fit.reason).toBe("one-sequence-exceeds-budget");
    // 16.1 GB + 131.072 GB − 85.899 GB = 61.27 GB short
    expect((fit.shortfallBytes / 1e9).toFixed(2)).toBe("61.27");
  });

  it("checkKvFit: 65 × 8,192 fits with headroom; 66 does not, short by 66 × 1.0737 − 69.80 GB", () => {
    const ok = checkKvFit(llama8b, 8192, 65);
    expect(ok.fits).toBe(true);
    if (ok.fits) expect(ok.headroomBytes).toBeGreaterThan(0);
    const no = checkKvFit(llama8b, 8192, 66);
    expect(no.fits).toBe(false);
    if (!no.fits) {
      expect(no.reason).toBe("request-exceeds-budget");
      expect(no.shortfallBytes).toBeCloseTo(66 * 131_072 * 8192 - kvBudgetBytes(llama8b), 0);
    }
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => sequencesThatFit({ ...llama8b, deviceBytes: 0 }, 10)).toThrow(PlanningInputError);
    expect(() => sequencesThatFit(llama8b, 0)).toThrow(/^contextTokens/);
    expect(() => contextThatFits(llama8b, 1.5)).toThrow(/^concurrency/);
    expect(() => checkKvFit({ ...llama8b, workspaceBytes: -1 }, 10, 1)).toThrow(/^workspaceBytes/);
    expect(() => sequencesThatFit({ ...llama8b, bytesPerToken: Number.NaN }, 10)).toThrow(/^bytesPerToken/);
  });
});
