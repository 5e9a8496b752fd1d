import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { readFloatInitializers } from "@/lib/onnx/read-weights";
import { GraphBuilder } from "./graph-builder";
import { attention, causalMask, geluErf, geluTanh, layerNorm, paddingMask, sequenceLength } from "./transformer-layers";

afterAll(() => removeOrtDebugLog());

/** erf by its Maclaurin series (exact to double precision for |x| ≤ 3 with 80 terms). */
function erf(x: number): number {
  let sum = 0;
  let term = x; // x^(2n+1) (−1)^n / n!
  for (let n = 0; n < 80; n++) {
    sum += term / (2 * n + 1);
    term *= (-x * x) / (n + 1);
  }
  return (2 / Math.sqrt(Math.PI)) * sum;
}

async function runOne(
  b: GraphBuilder,
  feeds: Record<string, ort.Tensor>,
): Promise<ort.InferenceSession.OnnxValueMapType> {
  const session = await ort.InferenceSession.create(b.toBytes({ producerVersion: "t" }));
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

const xs = Float32Array.from({ length: 13 }, (_, i) => -3 + i * 0.5);

describe("transformer layers in ONNX Runtime, against JavaScript", () => {
  it("GELU (erf): 0.5·x·(1 + erf(x/√2))", async () => {
    const b = new GraphBuilder("g", 1);
    b.output(geluErf(b, b.input("x", "float32", [13])), "float32", [13], "y");
    const y = (await runOne(b, { x: new ort.Tensor("float32", xs, [13]) })).y?.data as Float32Array;
    xs.forEach((x, i) => expect(y[i]).toBeCloseTo(0.5 * x * (1 + erf(x / Math.SQRT2)), 6));
  });

  it("GELU (tanh, GPT-2's gelu_new): 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))", async () => {
    const b = new GraphBuilder("g", 1);
    b.output(geluTanh(b, b.input("x", "float32", [13])), "float32", [13], "y");
    const y = (await runOne(b, { x: new ort.Tensor("float32", xs, [13]) })).y?.data as Float32Array;
    xs.forEach((x, i) =>
      expect(y[i]).toBeCloseTo(0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))), 6),
    );
  });

  it("LayerNormalization (opset 17) over the last axis: γ·(x − mean)/√(var + ε) + β", async () => {
    const b = new GraphBuilder("g", 3);
    b.output(layerNorm(b, b.input("x", "float32", [2, 4]), "ln", 4, 1e-5), "float32", [2, 4], "y");
    const w = readFloatInitializers(b.toBytes({ producerVersion: "t" }));
    const x = new Float32Array([1, 2, 3, 4, -1, 0, 5, 0.5]);
    const y = (await runOne(b, { x: new ort.Tensor("float32", x, [2, 4]) })).y?.data as Float32Array;
    const gamma = w.get("ln.weight")?.values ?? new Float32Array();
    const beta = w.get("ln.bias")?.values ?? new Float32Array();
    for (let r = 0; r < 2; r++) {
      const row = Array.from(x.subarray(r * 4, r * 4 + 4));
      const mean = row.reduce((s, v) => s + v, 0) / 4;
      const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / 4;
      row.forEach((v, j) => {
        const expected = (gamma[j] ?? 0) * ((v - mean) / Math.sqrt(variance + 1e-5)) + (beta[j] ?? 0);
        expect(y[r * 4 + j]).toBeCloseTo(expected, 5);
      });
    }
  });

  it("the causal mask is −10,000 strictly above the diagonal and 0 elsewhere; the padding mask is [N,1,1,S]", async () => {
    const b = new GraphBuilder("g", 1);
    const ids = b.input("ids", "int64", ["batch", "sequence"]);
    const mask = b.input("mask", "int64", ["batch", "sequence"]);
    b.output(causalMask(b, sequenceLength(b, ids).vector), "float32", ["sequence", "sequence"], "causal");
    b.output(paddingMask(b, mask), "float32", ["batch", 1, 1, "sequence"], "padding");
    const r = await runOne(b, {
      ids: new ort.Tensor("int64", new BigInt64Array(3), [1, 3]),
      mask: new ort.Tensor("int64", BigInt64Array.from([1n, 1n, 0n]), [1, 3]),
    });
    expect(r.causal?.dims).toEqual([3, 3]);
    expect(Array.from(r.causal?.data as Float32Array)).toEqual([0, -10000, -10000, 0, 0, -10000, 0, 0, 0]);
    expect(r.padding?.dims).toEqual([1, 1, 1, 3]);
    expect(Array.from(r.padding?.data as Float32Array)).toEqual([-0, -0, -10000]);
  });

  it("multi-head attention equals softmax(Q·Kᵀ/√D + mask)·V computed per head by hand (2 heads of 2, S = 3)", async () => {
    const b = new GraphBuilder("g", 1);
    const q = b.input("q", "float32", [1, 3, 4]);
    const k = b.input("k", "float32", [1, 3, 4]);
    const v = b.input("v", "float32", [1, 3, 4]);
    const ids = b.input("ids", "int64", [1, 3]);
    b.output(attention(b, q, k, v, 2, 2, [causalMask(b, sequenceLength(b, ids).vector)]), "float32", [1, 3, 4], "y");
    const Q = Float32Array.from({ length: 12 }, (_, i) => Math.sin(i + 1));
    const K = Float32Array.from({ length: 12 }, (_, i) => Math.cos(2 * i));
    const V = Float32Array.from({ length: 12 }, (_, i) => i / 4 - 1);
    const y = (
      await runOne(b, {
        q: new ort.Tensor("float32", Q, [1, 3, 4]),
        k: new ort.Tensor("float32", K, [1, 3, 4]),
        v: new ort.Tensor("float32", V, [1, 3, 4]),
        ids: new ort.Tensor("int64", new BigInt64Array(3), [1, 3]),
      })
    ).y?.data as Float32Array;
    // Head h uses features [2h, 2h+1] of each position; position i attends to positions j ≤ i.
    const at = (a: Float32Array, pos: number, f: number) => a[pos * 4 + f] ?? Number.NaN;
    for (let h = 0; h < 2; h++) {
      for (let i = 0; i < 3; i++) {
        const scores = [0, 1, 2].map(
          (j) =>
            (at(Q, i, 2 * h) * at(K, j, 2 * h) + at(Q, i, 2 * h + 1) * at(K, j, 2 * h + 1)) / Math.SQRT2 +
            (j > i ? -10000 : 0),
        );
        const max = Math.max(...scores);
        const e = scores.map((s) => Math.exp(s - max));
        const z = e.reduce((s, x) => s + x, 0);
        for (let f = 0; f < 2; f++) {
          const expected = [0, 1, 2].reduce((s, j) => s + ((e[j] ?? 0) / z) * at(V, j, 2 * h + f), 0);
          expect(y[i * 4 + 2 * h + f]).toBeCloseTo(expected, 5);
        }
      }
    }
  });
});
