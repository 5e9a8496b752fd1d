import { nonNegativeInteger, positive, positiveInteger, unitInterval } from "../batching/guards";

/**
 * Prefill (the model-side share of TTFT, F-54): compute bound, t ≈ FLOPs / (η · peak). FLOPs ≈ 2·P·n for the weight
 * matmuls, plus, optionally, 4·L·d·n² for attention scores and the value product (no causal halving), which is what
 * reproduces the chapter's 41.9 ms for Llama 3 8B.
 */

export interface PrefillFlopsInput {
  parameters: number;
  promptTokens: number;
  /** Include the attention term 4·L·d_model·n². */
  attention?: { layers: number; hiddenSize: number };
}

export function prefillFlops(input: PrefillFlopsInput): number {
  positive("parameters", input.parameters);
  const n = nonNegativeInteger("promptTokens", input.promptTokens);
  let flops = 2 * input.parameters * n;
  if (input.attention) {
    const layers = positiveInteger("attention.layers", input.attention.layers);
    const d = positiveInteger("attention.hiddenSize", input.attention.hiddenSize);
    flops += 4 * layers * d * n * n;
  }
  return flops;
}

/** FLOPs / (efficiency × peak), in ms. The chapter assumes 40% of the FP16 peak during prefill. */
export function prefillTimeMs(flops: number, peakFlopsPerS: number, efficiency = 0.4): number {
  positive("flops", flops);
  positive("peakFlopsPerS", peakFlopsPerS);
  positive("efficiency", unitInterval("efficiency", efficiency));
  return (flops / (efficiency * peakFlopsPerS)) * 1000;
}
