import { attr, type GraphBuilder } from "./graph-builder";

/** Transformer building blocks as Hugging Face's ONNX exports write them, in plain opset-17 operators. */

/** x·W + b with W stored [in, out] (MatMul broadcasts over batch and sequence). */
export function dense(b: GraphBuilder, x: string, name: string, din: number, dout: number): string {
  const y = b.op("MatMul", [x, b.normal(`${name}.weight`, [din, dout])], {}, `${name}.matmul`);
  return b.op("Add", [y, b.normal(`${name}.bias`, [dout])], {}, name);
}

/** LayerNormalization over the last axis (an ONNX operator since opset 17) with γ = 1 + noise, β = noise. */
export function layerNorm(b: GraphBuilder, x: string, name: string, d: number, epsilon: number): string {
  return b.op(
    "LayerNormalization",
    [x, b.normal(`${name}.weight`, [d], undefined, 1), b.normal(`${name}.bias`, [d])],
    {
      axis: attr.int(-1),
      epsilon: attr.float(epsilon),
      stash_type: attr.int(1),
    },
    name,
  );
}

/** BERT's GELU: 0.5·x·(1 + erf(x/√2)). Opset 17 has no Gelu operator (it arrives in 20). */
export function geluErf(b: GraphBuilder, x: string): string {
  const e = b.op("Erf", [b.op("Div", [x, b.float([Math.SQRT2], [])])]);
  return b.op("Mul", [b.op("Mul", [x, b.float([0.5], [])]), b.op("Add", [e, b.float([1], [])])]);
}

/** GPT-2's gelu_new: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
export function geluTanh(b: GraphBuilder, x: string): string {
  const x3 = b.op("Mul", [b.op("Mul", [x, x]), x]);
  const inner = b.op("Add", [x, b.op("Mul", [x3, b.float([0.044715], [])])]);
  const t = b.op("Tanh", [b.op("Mul", [inner, b.float([Math.sqrt(2 / Math.PI)], [])])]);
  return b.op("Mul", [b.op("Mul", [x, b.float([0.5], [])]), b.op("Add", [t, b.float([1], [])])]);
}

/** [N, S, H·D] → [N, H, S, D] (or [N, H, D, S] for keys, ready for Q·Kᵀ). */
function splitHeads(b: GraphBuilder, x: string, heads: number, headDim: number, forKeys: boolean): string {
  const r = b.op("Reshape", [x, b.int64([0, 0, heads, headDim])]);
  return b.op("Transpose", [r], { perm: attr.ints(forKeys ? [0, 2, 3, 1] : [0, 2, 1, 3]) });
}

/**
 * softmax(Q·Kᵀ/√D + mask)·V over H heads, back to [N, S, H·D]. `mask` is added to the [N, H, S, S] scores
 * (it broadcasts: [N, 1, 1, S] for padding, [S, S] for causality).
 */
export function attention(
  b: GraphBuilder,
  q: string,
  k: string,
  v: string,
  heads: number,
  headDim: number,
  masks: readonly string[],
): string {
  const qh = splitHeads(b, q, heads, headDim, false);
  const kt = splitHeads(b, k, heads, headDim, true);
  const vh = splitHeads(b, v, heads, headDim, false);
  let scores = b.op("Div", [b.op("MatMul", [qh, kt]), b.float([Math.sqrt(headDim)], [])]);
  for (const m of masks) scores = b.op("Add", [scores, m]);
  const p = b.op("Softmax", [scores], { axis: attr.int(-1) });
  const ctx = b.op("Transpose", [b.op("MatMul", [p, vh])], { perm: attr.ints([0, 2, 1, 3]) });
  return b.op("Reshape", [ctx, b.int64([0, 0, heads * headDim])]);
}

/** Sequence length of an [N, S] input: as a scalar (for Range) and as a 1-element vector (for shapes). */
export function sequenceLength(b: GraphBuilder, ids: string): { scalar: string; vector: string; shape: string } {
  const shape = b.op("Shape", [ids]);
  return {
    shape,
    scalar: b.op("Gather", [shape, b.int64([1], [])], { axis: attr.int(0) }),
    vector: b.op("Gather", [shape, b.int64([1])], { axis: attr.int(0) }),
  };
}

/** Position ids 0…S−1 looked up in a [maxPositions, d] table: [S, d], broadcast over the batch. */
export function positionEmbedding(b: GraphBuilder, seqScalar: string, table: string): string {
  const positions = b.op("Range", [b.int64([0], []), seqScalar, b.int64([1], [])]);
  return b.op("Gather", [table, positions], { axis: attr.int(0) });
}

/** The causal mask: an [S, S] matrix with −10,000 above the diagonal (GPT-2's masked bias) and 0 elsewhere. */
export function causalMask(b: GraphBuilder, seqVector: string): string {
  const square = b.op("Concat", [seqVector, seqVector], { axis: attr.int(0) });
  const filled = b.op("ConstantOfShape", [square], { value: attr.floatTensor(-10000) });
  return b.op("Trilu", [filled, b.int64([1], [])], { upper: attr.int(1) });
}

/** BERT's padding mask: (1 − mask)·(−10,000) as [N, 1, 1, S]. */
export function paddingMask(b: GraphBuilder, mask: string): string {
  const m = b.op("Cast", [mask], { to: attr.int(1) });
  const blocked = b.op("Mul", [b.op("Sub", [b.float([1], []), m]), b.float([-10000], [])]);
  return b.op("Unsqueeze", [blocked, b.int64([1, 2])]);
}
