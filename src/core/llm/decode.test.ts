import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import {
  decodeFloorMs,
  decodeStep,
  decodeSweep,
  decodeWeightIntensity,
  eagerSubmissionMs,
  ridgePoint,
  tokensPerSFromTpot,
} from "./decode";
import { GPT2_XL, GPT2_XL_EAGER_DECODE_KERNELS, H100_SXM5 } from "./presets";

const BW = H100_SXM5.memoryBandwidthBytesPerS;

describe("Eq. 14 / F-56: decode floor, TPOT and tokens/s", () => {
  it("TV-061: TPOT 50 ms ↔ 20 tokens/s", () => {
    expect(tokensPerSFromTpot(50)).toBe(20);
  });

  it("TV-062: GPT-2 XL 3 GB FP16 at 3.35 TB/s → decode floor 0.8955 ms ('0.9 ms'); FP8 0.45 ms", () => {
    expect(decodeFloorMs(GPT2_XL.weightBytes.fp16!, BW).toFixed(4)).toBe("0.8955");
    expect(decodeFloorMs(GPT2_XL.weightBytes.fp8!, BW).toFixed(2)).toBe("0.45");
  });

  it("TV-062: eager submission of 576 kernels × 15 μs = 8.64 ms, 9.65× the weight read ('roughly 10×')", () => {
    const eager = eagerSubmissionMs(GPT2_XL_EAGER_DECODE_KERNELS);
    expect(eager).toBeCloseTo(8.64, 12);
    expect((eager / decodeFloorMs(3e9, BW)).toFixed(2)).toBe("9.65");
  });

  it("TV-062: batch-1 intensity ≈ 1 FLOP/byte vs a 295 ridge: more than two orders of magnitude below", () => {
    const intensity = decodeWeightIntensity(GPT2_XL.parameters, GPT2_XL.weightBytes.fp16!); // 2 × 1.5e9 / 3e9
    expect(intensity).toBe(1);
    expect(ridgePoint(H100_SXM5.fp16FlopsPerS, BW) / intensity).toBeGreaterThan(100);
  });

  const gpt2 = { weightBytes: 3e9, kvBytesPerToken: 307_200, contextTokens: 1024, bandwidthBytesPerS: BW };

  it("TV-063: batch 1 at full context → 3.3146 GB per step ('3.3 GB'), 0.9894 ms ('1.0 ms'), 1,010.7 tok/s", () => {
    // 3e9 + 307,200 × 1,024 = 3.31457 GB; / 3.35e12 = 0.98942 ms; 1 / that = 1,010.7 tokens/s.
    const s = decodeStep({ ...gpt2, batch: 1 });
    expect((s.bytesPerStep / 1e9).toFixed(4)).toBe("3.3146");
    expect(s.stepMs.toFixed(4)).toBe("0.9894");
    expect(s.tokensPerS.toFixed(1)).toBe("1010.7");
  });

  it("TV-063: batch 32 → 13.066 GB ('13.1 GB'), cache share 77.0%, 3.9004 ms ('3.9 ms'), 8,204 tok/s; TPOT ×3.94", () => {
    const [one, b32] = decodeSweep(gpt2, [1, 32]);
    expect((b32!.bytesPerStep / 1e9).toFixed(3)).toBe("13.066");
    expect((b32!.cacheShare * 100).toFixed(1)).toBe("77.0");
    expect(b32!.stepMs.toFixed(4)).toBe("3.9004");
    expect(Math.round(b32!.tokensPerS)).toBe(8204);
    expect((b32!.stepMs / one!.stepMs).toFixed(2)).toBe("3.94");
  });

  it("TV-072: 16 GB FP16 weights at 2 TB/s → 8.0 ms TPOT floor; ~4 GB INT4 → 2 ms", () => {
    expect(decodeFloorMs(16e9, 2e12)).toBeCloseTo(8, 12);
    expect(decodeFloorMs(4e9, 2e12)).toBeCloseTo(2, 12);
  });

  it("batching shares the weight read but not the cache reads: with no context, tokens/s scales with the batch", () => {
    const [a, b] = decodeSweep({ ...gpt2, contextTokens: 0 }, [1, 8]);
    expect(b!.stepMs).toBeCloseTo(a!.stepMs, 12);
    expect(b!.tokensPerS).toBeCloseTo(8 * a!.tokensPerS, 9);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => decodeFloorMs(0, BW)).toThrow(PlanningInputError);
    expect(() => decodeFloorMs(3e9, 0)).toThrow(/^bandwidthBytesPerS/);
    expect(() => decodeStep({ ...gpt2, batch: 0 })).toThrow(/^batch/);
    expect(() => tokensPerSFromTpot(0)).toThrow(/^tpotMs/);
    expect(() => eagerSubmissionMs(-1)).toThrow(/^kernels/);
  });
});
