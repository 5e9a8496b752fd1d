/**
 * The chapter's LLM and accelerator figures (digest §0.2), as presets for the KV-cache, decode and prefill models.
 * Bytes are decimal (1 GB = 1e9 B), as the chapter counts tensor footprints. Values marked "reconstructed" or
 * "external" are not printed in the chapter; the digest derived them so the chapter's numbers reproduce.
 */

export interface AcceleratorSpec {
  name: string;
  /** Dense FP16 tensor peak, FLOP/s. */
  fp16FlopsPerS: number;
  /** Dense FP8 peak, FLOP/s. */
  fp8FlopsPerS: number;
  memoryBandwidthBytesPerS: number;
  memoryBytes: number;
}

/** NVIDIA H100 SXM5, the chapter's reference: 989 TFLOP/s FP16, 1,979 FP8, 3.35 TB/s, 80 GiB = 85.9 GB. */
export const H100_SXM5: AcceleratorSpec = {
  name: "NVIDIA H100 SXM5",
  fp16FlopsPerS: 989e12,
  fp8FlopsPerS: 1979e12,
  memoryBandwidthBytesPerS: 3.35e12,
  memoryBytes: 80 * 2 ** 30,
};

export interface TransformerSpec {
  name: string;
  parameters: number;
  layers: number;
  hiddenSize: number;
  queryHeads: number;
  /** Key-value heads: equal to queryHeads without grouped-query attention. */
  kvHeads: number;
  headDim: number;
  /** Weight bytes at the precisions the chapter quotes. */
  weightBytes: { fp16?: number; fp8?: number; int4?: number };
  maxContextTokens?: number;
}

/**
 * GPT-2 XL, the bandwidth-bound lighthouse: 3 GB FP16, no GQA. Parameters (1.5e9) reconstructed from "1.5 TFLOP for
 * 512 tokens"; 48 layers × 1,600 hidden reconstructed from 307.2 KB/token; 25 heads × 64 is the public architecture.
 */
export const GPT2_XL: TransformerSpec = {
  name: "GPT-2 XL",
  parameters: 1.5e9,
  layers: 48,
  hiddenSize: 1600,
  queryHeads: 25,
  kvHeads: 25,
  headDim: 64,
  weightBytes: { fp16: 3e9, fp8: 1.5e9 },
  maxContextTokens: 1024,
};

/** Kernels one eager GPT-2 XL decode step submits (§13.9.2). */
export const GPT2_XL_EAGER_DECODE_KERNELS = 576;

/** GPT-2 Small as the speculative-decoding draft: 248 MB FP16. */
export const GPT2_SMALL_DRAFT_FP16_BYTES = 248e6;

/**
 * Llama 3 8B: 32 layers, 8 KV heads of 128 (32 query heads: GQA cuts the cache 4×), 16.1 GB FP16, 4 GB 4-bit AWQ.
 * The 8.03e9 parameters and 4,096 hidden size are external, used to reproduce the 41.9 ms prefill.
 */
export const LLAMA3_8B: TransformerSpec = {
  name: "Llama 3 8B",
  parameters: 8.03e9,
  layers: 32,
  hiddenSize: 4096,
  queryHeads: 32,
  kvHeads: 8,
  headDim: 128,
  weightBytes: { fp16: 16.1e9, int4: 4e9 },
  maxContextTokens: 8192,
};

/**
 * The chapter's 70B-class GQA model (Figure 8): 35.3 GB of INT4 weights. 80 layers × 8 KV heads × 128 are
 * reconstructed so "batch 32 exhausts the cache at ~4.8k tokens" reproduces; 70.6e9 parameters = 35.3 GB at 4 bits;
 * 64 query heads and 8,192 hidden are the public Llama 3 70B shape (external).
 */
export const LLAMA_70B_CLASS: TransformerSpec = {
  name: "70B-class (GQA)",
  parameters: 70.6e9,
  layers: 80,
  hiddenSize: 8192,
  queryHeads: 64,
  kvHeads: 8,
  headDim: 128,
  weightBytes: { int4: 35.3e9 },
};
