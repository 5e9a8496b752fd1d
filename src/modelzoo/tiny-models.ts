import { batchNorm, conv, linear, poolFlatten, relu } from "./cnn-layers";
import { buildGpt2, type Gpt2Config } from "./gpt2";
import { attr, GraphBuilder, type BuildOptions } from "./graph-builder";

/** Three small models for fast tests: KBs of weights, milliseconds to run, one of each family. */

/** input [batch, 64] → Gemm 64→128 → Relu → Gemm 128→64 → Relu → Gemm 64→10 → logits [batch, 10]. */
export function buildTinyMlp(options: BuildOptions): Uint8Array {
  const b = new GraphBuilder(options.name ?? "tiny-mlp", options.seed);
  let x = b.input("input", "float32", ["batch", 64]);
  x = relu(b, linear(b, x, "fc1", 64, 128));
  x = relu(b, linear(b, x, "fc2", 128, 64));
  b.output(linear(b, x, "fc3", 64, 10), "float32", ["batch", 10], "logits");
  return b.toBytes({ producerVersion: options.producerVersion, metadata: options.metadata });
}

/**
 * input [batch, 3, 32, 32] → Conv 3→8 3×3 (no bias) → BN → Relu → MaxPool 2×2/2 → Conv 8→16 3×3 (+bias) → Relu
 * → GlobalAveragePool → Flatten → Gemm 16→10 → logits [batch, 10].
 */
export function buildTinyCnn(options: BuildOptions): Uint8Array {
  const b = new GraphBuilder(options.name ?? "tiny-cnn", options.seed);
  let x = b.input("input", "float32", ["batch", 3, 32, 32]);
  x = relu(b, batchNorm(b, conv(b, x, "conv1", { cin: 3, cout: 8, kernel: 3 }), "bn1", 8));
  x = b.op("MaxPool", [x], { kernel_shape: attr.ints([2, 2]), strides: attr.ints([2, 2]) }, "pool1");
  x = relu(b, conv(b, x, "conv2", { cin: 8, cout: 16, kernel: 3, bias: true }));
  b.output(linear(b, poolFlatten(b, x), "fc", 16, 10), "float32", ["batch", 10], "logits");
  return b.toBytes({ producerVersion: options.producerVersion, metadata: options.metadata });
}

/** A 2-layer GPT-2: the same builder as GPT-2 small, at d = 32 with 2 heads, 128 tokens, 64 positions. */
export const TINY_TRANSFORMER: Gpt2Config = {
  vocab: 128,
  positions: 64,
  hidden: 32,
  layers: 2,
  heads: 2,
  layerNormEpsilon: 1e-5,
};

export function buildTinyTransformer(options: BuildOptions): Uint8Array {
  return buildGpt2(TINY_TRANSFORMER, { ...options, name: options.name ?? "tiny-transformer" });
}
