import { describe, expect, it } from "vitest";
import { roundLikeDisplay, roundToSignificant } from "@/core/planning/significant-figures";
import { defaultState } from "@/lib/planning/fields";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import {
  KV_PRESETS,
  computeKvCache,
  figure8XMax,
  kvCacheSpec,
  type KvCacheState,
  type KvCacheView,
} from "./kv-cache-data";

const preset = (id: string): KvCacheState => {
  const p = KV_PRESETS.find((x) => x.id === id);
  if (!p) throw new Error(`no preset ${id}`);
  return p.state;
};

function sizingOf(view: KvCacheView) {
  if (!view.sizing?.ok) throw new Error(`expected sizing, got ${JSON.stringify(view.sizing)}`);
  return view.sizing.value;
}

describe("KV page: Llama 3 8B (TV-068)", () => {
  const view = computeKvCache(preset("llama3-8b"));
  const s = sizingOf(view);

  it("is the page's default view", () => {
    expect(defaultState(kvCacheSpec)).toEqual(preset("llama3-8b"));
  });

  it("2 × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B per token; GQA shrinks it 32 / 8 = 4×", () => {
    expect(s.bytesPerToken).toBe(131_072);
    expect(s.gqaFactor).toBe(4);
  });

  it("an 8,192-token sequence holds 131,072 × 8,192 = 1,073,741,824 B = 1.07 GB", () => {
    expect(s.bytesPerSequence).toBe(1_073_741_824);
    expect(roundLikeDisplay(s.bytesPerSequence / 1e9, "1.07")).toBe(1.07);
  });

  it("80 GiB = 85.9 GB, minus 16.1 GB of weights = 69.8 GB: ⌊69.8 / 1.0737⌋ = 65 sequences", () => {
    expect(roundLikeDisplay(s.deviceBytes / 1e9, "85.9")).toBe(85.9);
    expect(roundLikeDisplay(s.budgetBytes / 1e9, "69.8")).toBe(69.8);
    expect(s.sequences).toMatchObject({ fits: true, sequences: 65 });
  });

  it("32 sequences × 8,192 tokens fit with 69.8 − 34.36 = 35.44 GB to spare; the bar adds up to the device", () => {
    expect(s.load.fits).toBe(true);
    expect(roundLikeDisplay(s.load.cacheBytes / 1e9, "34.36")).toBe(34.36);
    const total = view.memoryBar.reduce((sum, m) => sum + m.bytes, 0);
    expect(total).toBeCloseTo(s.deviceBytes, 0);
    expect(view.memoryBar.map((m) => m.key)).toEqual(["weights", "reserve", "kv", "free"]);
  });

  it("the same memory counted in GB instead of GiB is 80 GB: 63.9 GB for the cache, 59 sequences", () => {
    const gb = sizingOf(computeKvCache({ ...preset("llama3-8b"), memoryUnit: "GB" }));
    expect(gb.deviceBytes).toBe(80e9);
    // ⌊63.9e9 / 1,073,741,824⌋ = ⌊59.51⌋ = 59
    expect(gb.sequences).toMatchObject({ fits: true, sequences: 59 });
  });
});

describe("KV page: the 70B-class model (Figure 8, TV-069)", () => {
  const view = computeKvCache(preset("70b"));
  const s = sizingOf(view);

  it("80 layers × 8 × 128 × 2 × 2 = 327,680 B per token; 85.9 − 35.3 = 50.6 GB for KV", () => {
    expect(s.bytesPerToken).toBe(327_680);
    expect(roundLikeDisplay(s.budgetBytes / 1e9, "50.6")).toBe(50.6);
  });

  it("Figure 8: batch 32 exhausts the budget at ⌊50.6e9 / (32 × 327,680)⌋ ≈ 4,825 tokens", () => {
    const f = view.figure8!;
    const b32 = f.lines.find((l) => l.batch === 32)!;
    // TV-069: 4,825 ("roughly 4,800", "4.8k").
    expect(b32.crossingTokens).toBe(4825);
    expect(roundToSignificant(b32.crossingTokens!, 2)).toBe(4800);
    // The exact count from the unrounded budget 85.899 − 35.3 = 50.599 GB.
    expect(b32.crossingTokens).toBe(Math.floor(s.budgetBytes / (32 * 327_680)));
    expect(f.lines.map((l) => l.batch)).toEqual([1, 8, 16, 32, 64]);
    expect(roundLikeDisplay(f.budgetGB, "50.6")).toBe(50.6);
  });

  it("the chart spans 0 to 8,192 tokens (twice the 4,096 context), lines in GB rising linearly", () => {
    const f = view.figure8!;
    expect(f.xMaxTokens).toBe(8192);
    const last = f.rows.at(-1)!;
    expect(last.context).toBe(8192);
    expect(last.b32).toBeCloseTo((32 * 8192 * 327_680) / 1e9, 9);
    expect(view.figure8Csv.columns).toEqual([
      "context_tokens",
      "kv_gb_batch_1",
      "kv_gb_batch_8",
      "kv_gb_batch_16",
      "kv_gb_batch_32",
      "kv_gb_batch_64",
      "kv_budget_gb",
    ]);
  });

  it("figure8XMax doubles from 8k until it shows twice the context", () => {
    expect([figure8XMax(1024), figure8XMax(4096), figure8XMax(8192), figure8XMax(20_000)]).toEqual([
      8192, 8192, 16384, 65536,
    ]);
  });

  it("a concurrency off the standard lines gets its own line", () => {
    const f = computeKvCache({ ...preset("70b"), concurrency: "24" }).figure8!;
    expect(f.lines.map((l) => l.batch)).toEqual([1, 8, 16, 24, 32, 64]);
  });
});

describe("KV page: does not fit", () => {
  it("48 sequences of 8,192 tokens on the 70B-class model: the shortfall is what the cache needs beyond the device", () => {
    const view = computeKvCache({ ...preset("70b"), context: "8192", concurrency: "48" });
    const s = sizingOf(view);
    if (s.load.fits) throw new Error("expected a load that does not fit");
    // 48 × 8,192 × 327,680 = 128.85 GB of cache against 50.6 GB free: 78.25 GB short.
    expect(roundLikeDisplay(s.load.cacheBytes / 1e9, "128.85")).toBe(128.85);
    expect(roundLikeDisplay(s.load.shortfallBytes / 1e9, "78.25")).toBe(78.25);
    expect(view.memoryBar.at(-1)).toMatchObject({ key: "over" });
    expect(view.memoryBar.at(-1)!.bytes).toBeCloseTo(s.load.shortfallBytes, 0);
    // The bar is as long as the load needs (164.1 GB), split at the device's edge (85.9 GB).
    const total = view.memoryBar.reduce((sum, m) => sum + m.bytes, 0);
    expect(total).toBeCloseTo(s.load.requiredBytes, 0);
    const upToEdge = view.memoryBar.filter((m) => m.key !== "over").reduce((sum, m) => sum + m.bytes, 0);
    expect(upToEdge).toBeCloseTo(s.deviceBytes, 0);
  });

  it("weights that fill memory: no sequence fits, and the reason says so", () => {
    const s = sizingOf(computeKvCache({ ...preset("llama3-8b"), weights: "90" }));
    expect(s.sequences).toMatchObject({ fits: false, reason: "weights-fill-memory" });
    expect(s.budgetBytes).toBeLessThan(0);
  });
});

describe("KV page: decode and speculative decoding", () => {
  it("TV-063, GPT-2 XL at 1,024 tokens: batch 1 → 3.3146 GB/step, 0.9894 ms, 1,010.7 tok/s; batch 32 → 3.9004 ms, 8,204 tok/s, 77% cache", () => {
    const view = computeKvCache(preset("gpt2-xl"));
    expect(sizingOf(view).bytesPerToken).toBe(307_200);
    if (!view.decode?.ok) throw new Error("expected decode rows");
    const d = view.decode.value;
    // The floor: 3 GB / 3.35 TB/s = 0.8955 ms.
    expect(roundLikeDisplay(d.floorMs, "0.8955")).toBe(0.8955);
    const b1 = d.rows.find((r) => r.batch === 1)!;
    expect(roundLikeDisplay(b1.bytesPerStep / 1e9, "3.3146")).toBe(3.3146);
    expect(roundLikeDisplay(b1.stepMs, "0.9894")).toBe(0.9894);
    expect(roundLikeDisplay(b1.tokensPerS, "1010.7")).toBe(1010.7);
    const b32 = d.rows.find((r) => r.batch === 32)!;
    expect(roundLikeDisplay(b32.stepMs, "3.9004")).toBe(3.9004);
    expect(Math.round(b32.tokensPerS)).toBe(8204);
    expect(Math.round(b32.cacheShare * 100)).toBe(77);
  });

  it("decode rows beyond the sequences that fit are flagged", () => {
    const view = computeKvCache(preset("llama3-8b"));
    if (!view.decode?.ok) throw new Error("expected decode rows");
    // 65 sequences fit: batch 64 does, 128 does not.
    expect(view.decode.value.rows.find((r) => r.batch === 64)?.fits).toBe(true);
    expect(view.decode.value.rows.find((r) => r.batch === 128)?.fits).toBe(false);
  });

  it("TV-066, Eq. 15: γ = 4, α = 0.7, 248 MB draft for a 3 GB target: E = 2.7731, 0.4297 ms per token, 2.084×", () => {
    const view = computeKvCache(preset("gpt2-xl"));
    if (!view.speculative?.ok) throw new Error("expected a speculative estimate");
    const s = view.speculative.value;
    expect(roundLikeDisplay(s.expectedTokens, "2.7731")).toBe(2.7731);
    // Draft: 4 × 248e6 / 3.35e12 = 0.2961 ms; verify 0.8955 ms.
    expect(roundLikeDisplay(4 * s.draftStepMs, "0.2961")).toBe(0.2961);
    expect(roundLikeDisplay(s.timePerTokenMs, "0.4297")).toBe(0.4297);
    expect(roundLikeDisplay(s.speedup, "2.084")).toBe(2.084);
  });

  it("the speedup curve runs α from 0 to 1 for γ = 1, 2, 4, 8; at α = 0 a draft only costs (speedup < 1)", () => {
    const view = computeKvCache(preset("gpt2-xl"));
    if (!view.speculative?.ok) throw new Error("expected a speculative estimate");
    const s = view.speculative.value;
    expect(s.gammas).toEqual([1, 2, 4, 8]);
    expect(s.curve).toHaveLength(51);
    expect(s.curve[0]!.g4).toBeLessThan(1);
    // α = 1: every draft accepted, E = γ + 1 = 5 tokens per (4 × 0.074 + 0.8955) ms.
    expect(s.curve.at(-1)!.g4).toBeCloseTo(0.8955 / ((4 * 0.07403 + 0.8955) / 5), 2);
    expect(view.speculativeCsv.columns).toEqual([
      "acceptance",
      "speedup_gamma_1",
      "speedup_gamma_2",
      "speedup_gamma_4",
      "speedup_gamma_8",
    ]);
  });
});

describe("KV page: invalid input", () => {
  it("KV heads that are not a whole number are refused on the field; sizing waits for it", () => {
    const view = computeKvCache({ ...preset("llama3-8b"), kvHeads: "8.5" });
    expect(view.errors.kvHeads).toBe("KV heads must be a whole number");
    expect(view.sizing).toBeNull();
    expect(view.figure8).toBeNull();
    // The speculative calculator does not use the cache shape.
    expect(view.speculative?.ok).toBe(true);
  });

  it("more KV heads than query heads is refused on the KV heads field", () => {
    const view = computeKvCache({ ...preset("llama3-8b"), kvHeads: "64" });
    expect(view.errors.kvHeads).toBe("KV heads: cannot exceed queryHeads (64 > 32)");
  });

  it("an acceptance above 1 is refused", () => {
    expect(computeKvCache({ ...preset("llama3-8b"), alpha: "1.2" }).errors.alpha).toBe("Acceptance α must be ≤ 1");
  });

  it("the URL reproduces the view", () => {
    const state = { ...preset("70b"), concurrency: "16", memoryUnit: "GB" };
    const back = parseUrlState(kvCacheSpec, new URLSearchParams(serializeUrlState(kvCacheSpec, state)));
    expect(back).toEqual(state);
    expect(sizingOf(computeKvCache(back)).deviceBytes).toBe(80e9);
  });
});
