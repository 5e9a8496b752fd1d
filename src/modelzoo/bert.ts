import { attr, GraphBuilder, type BuildOptions } from "./graph-builder";
import {
  attention,
  dense,
  geluErf,
  layerNorm,
  paddingMask,
  positionEmbedding,
  sequenceLength,
} from "./transformer-layers";

/**
 * BERT (Devlin et al. 2019), Hugging Face's BertModel with its pooler: post-LayerNorm blocks, separate Q/K/V
 * projections, erf GELU, padding mask from attention_mask. Token types are all 0 (segment A): the type table
 * is in the model (it is part of BERT's parameters) and row 0 is added to every position.
 */
export interface BertConfig {
  vocab: number;
  positions: number;
  typeVocab: number;
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
  layerNormEpsilon: number;
}

export const BERT_BASE: BertConfig = {
  vocab: 30522,
  positions: 512,
  typeVocab: 2,
  hidden: 768,
  layers: 12,
  heads: 12,
  intermediate: 3072,
  layerNormEpsilon: 1e-12,
};

export function buildBert(config: BertConfig, options: BuildOptions): Uint8Array {
  const { hidden: d, heads, intermediate } = config;
  const eps = config.layerNormEpsilon;
  const b = new GraphBuilder(options.name ?? "bert", options.seed);
  const ids = b.input("input_ids", "int64", ["batch", "sequence"]);
  const maskInput = b.input("attention_mask", "int64", ["batch", "sequence"]);
  const seq = sequenceLength(b, ids);

  const words = b.op("Gather", [b.normal("embeddings.word_embeddings.weight", [config.vocab, d]), ids], {
    axis: attr.int(0),
  });
  const positions = positionEmbedding(
    b,
    seq.scalar,
    b.normal("embeddings.position_embeddings.weight", [config.positions, d]),
  );
  const typeRow = b.op(
    "Gather",
    [b.normal("embeddings.token_type_embeddings.weight", [config.typeVocab, d]), b.int64([0], [])],
    { axis: attr.int(0) },
  );
  let h = layerNorm(b, b.op("Add", [b.op("Add", [words, positions]), typeRow]), "embeddings.LayerNorm", d, eps);
  const mask = paddingMask(b, maskInput);

  for (let i = 0; i < config.layers; i++) {
    const p = `encoder.layer.${i}`;
    const q = dense(b, h, `${p}.attention.self.query`, d, d);
    const k = dense(b, h, `${p}.attention.self.key`, d, d);
    const v = dense(b, h, `${p}.attention.self.value`, d, d);
    const ctx = attention(b, q, k, v, heads, d / heads, [mask]);
    const a = dense(b, ctx, `${p}.attention.output.dense`, d, d);
    const h1 = layerNorm(b, b.op("Add", [a, h]), `${p}.attention.output.LayerNorm`, d, eps);
    const inter = geluErf(b, dense(b, h1, `${p}.intermediate.dense`, d, intermediate));
    const out = dense(b, inter, `${p}.output.dense`, intermediate, d);
    h = layerNorm(b, b.op("Add", [out, h1]), `${p}.output.LayerNorm`, d, eps);
  }
  const last = b.output(h, "float32", ["batch", "sequence", d], "last_hidden_state");

  // Pooler: tanh(W·h[:, 0] + b) on the first ([CLS]) token; W stored [out, in] as torch's Linear.
  const cls = b.op("Gather", [last, b.int64([0], [])], { axis: attr.int(1) });
  const pooled = b.op(
    "Gemm",
    [cls, b.normal("pooler.dense.weight", [d, d]), b.normal("pooler.dense.bias", [d])],
    { transB: attr.int(1) },
    "pooler.dense",
  );
  b.output(b.op("Tanh", [pooled]), "float32", ["batch", d], "pooler_output");
  return b.toBytes({ producerVersion: options.producerVersion, metadata: options.metadata });
}
