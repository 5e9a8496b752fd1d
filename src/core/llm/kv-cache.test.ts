import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { gqaReduction, kvBytes, kvBytesPerToken, kvShapeOf } from "./kv-cache";
import { GPT2_XL, LLAMA3_8B, LLAMA_70B_CLASS } from "./presets";

describe("F-57 KV cache per token and totals", () => {
  it("TV-068: Llama 3 8B 2 × 32 × 8 × 128 × 2 = 131,072 bytes/token; GQA factor 32 / 8 = 4×", () => {
    expect(kvBytesPerToken(kvShapeOf(LLAMA3_8B))).toBe(131_072);
    expect(gqaReduction(LLAMA3_8B.queryHeads, LLAMA3_8B.kvHeads)).toBe(4);
  });

  it("TV-068: an 8,192-token conversation holds 131,072 × 8,192 = 1.0737 GB ('1.07 GB')", () => {
    expect((kvBytes(131_072, 8192) / 1e9).toFixed(4)).toBe("1.0737");
  });

  it("TV-063: GPT-2 XL (no GQA, 48 layers, hidden 1,600, FP16) → 307,200 B/token; 1,024 tokens = 314.57 MB", () => {
    const perToken = kvBytesPerToken(kvShapeOf(GPT2_XL));
    expect(perToken).toBe(2 * 48 * 1600 * 2);
    expect(perToken).toBe(307_200);
    expect((kvBytes(perToken, 1024) / 1e6).toFixed(2)).toBe("314.57");
    expect(gqaReduction(GPT2_XL.queryHeads, GPT2_XL.kvHeads)).toBe(1);
  });

  it("TV-069: 70B-class 2 × 80 × 8 × 128 × 2 = 327,680 B/token", () => {
    expect(kvBytesPerToken(kvShapeOf(LLAMA_70B_CLASS))).toBe(327_680);
  });

  it("TV-070: B = 8 at 32,768 tokens × 131,072 B = 34,359,738,368 B = 32 GiB, more than the 16 GB of weights", () => {
    const total = kvBytes(131_072, 32_768, 8);
    expect(total).toBe(34_359_738_368);
    expect(total).toBe(32 * 2 ** 30);
    expect(total).toBeGreaterThan(16e9);
  });

  it("TV-071: B = 16 at 2,048 tokens (L 32, H_kv 8, d 128, 2 B) = 4,294,967,296 B = 4 GiB", () => {
    const perToken = kvBytesPerToken({ layers: 32, kvHeads: 8, headDim: 128, bytesPerElement: 2 });
    expect(kvBytes(perToken, 2048, 16)).toBe(4_294_967_296);
  });

  it("TV-064: beam width 4 → 4× the KV footprint per user", () => {
    expect(kvBytes(131_072, 1000, 1, 4)).toBe(4 * kvBytes(131_072, 1000));
  });

  it("an FP8 cache halves the bytes", () => {
    expect(kvBytesPerToken(kvShapeOf(LLAMA3_8B, 1))).toBe(65_536);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => kvBytesPerToken({ layers: 0, kvHeads: 8, headDim: 128, bytesPerElement: 2 })).toThrow(
      PlanningInputError,
    );
    expect(() => kvBytesPerToken({ layers: 32, kvHeads: 8.5, headDim: 128, bytesPerElement: 2 })).toThrow(/^kvHeads/);
    expect(() => gqaReduction(8, 32)).toThrow(/^kvHeads/);
    expect(() => kvBytes(131_072, 100, 1, 0)).toThrow(/^beamWidth/);
    expect(() => kvBytes(Number.NaN, 100)).toThrow(/^bytesPerToken/);
    expect(() => kvBytes(1e300, 1e10, 1e10)).toThrow(/^contextTokens/);
  });
});
