import { attr, GraphBuilder, type BuildOptions } from "./graph-builder";
import {
  attention,
  causalMask,
  dense,
  geluTanh,
  layerNorm,
  positionEmbedding,
  sequenceLength,
} from "./transformer-layers";

/**
 * GPT-2 (Radford et al. 2019), Hugging Face's GPT2LMHeadModel: pre-LayerNorm blocks, fused QKV projection
 * (c_attn), gelu_new, a final LayerNorm, and the LM head tied to the token embedding — one initializer (wte)
 * feeds both the Gather and the head's Gemm. One forward pass over a context of `sequence` tokens.
 */
export interface Gpt2Config {
  vocab: number;
  /** n_positions: the position table's length, the longest context. */
  positions: number;
  hidden: number;
  layers: number;
  heads: number;
  layerNormEpsilon: number;
}

export const GPT2_SMALL: Gpt2Config = {
  vocab: 50257,
  positions: 1024,
  hidden: 768,
  layers: 12,
  heads: 12,
  layerNormEpsilon: 1e-5,
};

export function buildGpt2(config: Gpt2Config, options: BuildOptions): Uint8Array {
  const { vocab, hidden: d, heads, layers } = config;
  const headDim = d / heads;
  const b = new GraphBuilder(options.name ?? "gpt2", options.seed);
  const ids = b.input("input_ids", "int64", ["batch", "sequence"]);
  const seq = sequenceLength(b, ids);

  const wte = b.normal("transformer.wte.weight", [vocab, d]);
  const wpe = b.normal("transformer.wpe.weight", [config.positions, d]);
  let h = b.op("Add", [b.op("Gather", [wte, ids], { axis: attr.int(0) }), positionEmbedding(b, seq.scalar, wpe)]);
  const mask = causalMask(b, seq.vector);

  for (let i = 0; i < layers; i++) {
    const p = `transformer.h.${i}`;
    const a = layerNorm(b, h, `${p}.ln_1`, d, config.layerNormEpsilon);
    const qkv = dense(b, a, `${p}.attn.c_attn`, d, 3 * d);
    const [q, k, v] = b.node("Split", [qkv, b.int64([d, d, d])], { axis: attr.int(-1) }, 3, `${p}.attn.split`) as [
      string,
      string,
      string,
    ];
    const ctx = attention(b, q, k, v, heads, headDim, [mask]);
    h = b.op("Add", [h, dense(b, ctx, `${p}.attn.c_proj`, d, d)]);
    const m = layerNorm(b, h, `${p}.ln_2`, d, config.layerNormEpsilon);
    const ff = dense(b, geluTanh(b, dense(b, m, `${p}.mlp.c_fc`, d, 4 * d)), `${p}.mlp.c_proj`, 4 * d, d);
    h = b.op("Add", [h, ff]);
  }
  h = layerNorm(b, h, "transformer.ln_f", d, config.layerNormEpsilon);

  // Tied head: logits = h·wteᵀ. Gemm reads wte with transB, so no transposed copy of the table is made.
  const flat = b.op("Reshape", [h, b.int64([-1, d])]);
  const logits2d = b.op("Gemm", [flat, wte], { transB: attr.int(1) }, "lm_head");
  const outShape = b.op("Concat", [seq.shape, b.int64([vocab])], { axis: attr.int(0) });
  const logits = b.op("Reshape", [logits2d, outShape], {}, "logits");
  b.output(logits, "float32", ["batch", "sequence", vocab]);
  return b.toBytes({ producerVersion: options.producerVersion, metadata: options.metadata });
}
