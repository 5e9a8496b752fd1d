import { createHash } from "node:crypto";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { countParameters } from "@/core/model-analysis/parameters";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { readFloatInitializers, type FloatTensor } from "@/lib/onnx/read-weights";
import { normalTensor } from "./weight-stream";
import { buildTinyCnn, buildTinyMlp, buildTinyTransformer } from "./tiny-models";

afterAll(() => removeOrtDebugLog());

const opts = (seed: number) => ({ seed, producerVersion: "test" });
const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

async function run(bytes: Uint8Array, feeds: Record<string, ort.Tensor>) {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  try {
    return await session.run(feeds);
  } finally {
    await session.release();
  }
}

function weight(w: Map<string, FloatTensor>, name: string): Float32Array {
  const t = w.get(name);
  if (!t) throw new Error(`no initializer ${name}`);
  return t.values;
}

const at = (a: Float32Array | number[], i: number): number => a[i] ?? Number.NaN;

describe("tiny MLP", () => {
  const bytes = buildTinyMlp(opts(5));

  it("has 17,226 parameters: 64·128+128 + 128·64+64 + 64·10+10 = 8,320 + 8,256 + 650", () => {
    expect(countParameters(decodeOnnxModel(bytes)).parameters).toBe(17_226);
  });

  it("runs in ONNX Runtime at batch 1 and 4 and matches a JavaScript forward pass", async () => {
    const w = readFloatInitializers(bytes);
    for (const batch of [1, 4]) {
      const x = normalTensor(9, `x${batch}`, batch * 64, 1);
      const out = await run(bytes, { input: new ort.Tensor("float32", x, [batch, 64]) });
      const logits = out.logits;
      expect(logits?.dims).toEqual([batch, 10]);
      // Reference: Gemm with transB, weight [out, in]: y_j = b_j + Σ_i x_i·W[j, i].
      const layer = (input: number[], name: string, din: number, dout: number, act: boolean) =>
        Array.from({ length: dout }, (_, j) => {
          let s = at(weight(w, `${name}.bias`), j);
          for (let i = 0; i < din; i++) s += at(input, i) * at(weight(w, `${name}.weight`), j * din + i);
          return act ? Math.max(0, s) : s;
        });
      for (let n = 0; n < batch; n++) {
        const h1 = layer(Array.from(x.subarray(n * 64, n * 64 + 64)), "fc1", 64, 128, true);
        const h2 = layer(h1, "fc2", 128, 64, true);
        const y = layer(h2, "fc3", 64, 10, false);
        const got = (logits?.data as Float32Array).subarray(n * 10, n * 10 + 10);
        y.forEach((v, j) => expect(at(got, j)).toBeCloseTo(v, 5));
      }
    }
  });

  it("the same seed gives the same bytes; another seed other bytes", () => {
    expect(sha(buildTinyMlp(opts(5)))).toBe(sha(bytes));
    expect(sha(buildTinyMlp(opts(6)))).not.toBe(sha(bytes));
  });
});

describe("tiny CNN", () => {
  const bytes = buildTinyCnn(opts(5));

  it("has 1,570 parameters (216 + 16 + 1,168 + 170) and 16 BN statistics", () => {
    const c = countParameters(decodeOnnxModel(bytes));
    expect(c.parameters).toBe(1_570);
    expect(c.batchNormStatistics).toBe(16);
  });

  it("runs at batch 1 and 4 and matches a JavaScript forward pass (conv, BN, pool, GAP, Gemm)", async () => {
    const w = readFloatInitializers(bytes);
    const conv = (x: Float32Array, cin: number, hw: number, name: string, cout: number, bias: boolean) => {
      const k = weight(w, `${name}.weight`);
      const y = new Float32Array(cout * hw * hw);
      for (let o = 0; o < cout; o++)
        for (let r = 0; r < hw; r++)
          for (let c = 0; c < hw; c++) {
            let s = bias ? at(weight(w, `${name}.bias`), o) : 0;
            for (let i = 0; i < cin; i++)
              for (let dr = -1; dr <= 1; dr++)
                for (let dc = -1; dc <= 1; dc++) {
                  const rr = r + dr;
                  const cc = c + dc;
                  if (rr < 0 || cc < 0 || rr >= hw || cc >= hw) continue;
                  s += at(x, (i * hw + rr) * hw + cc) * at(k, ((o * cin + i) * 3 + dr + 1) * 3 + dc + 1);
                }
            y[(o * hw + r) * hw + c] = s;
          }
      return y;
    };
    for (const batch of [1, 4]) {
      const x = normalTensor(9, `img${batch}`, batch * 3 * 32 * 32, 1);
      const out = await run(bytes, { input: new ort.Tensor("float32", x, [batch, 3, 32, 32]) });
      expect(out.logits?.dims).toEqual([batch, 10]);
      const n = batch - 1; // check the last image of the batch
      let a = conv(x.subarray(n * 3072, (n + 1) * 3072), 3, 32, "conv1", 8, false);
      // BN: γ·(x − μ)/√(σ² + 1e-5) + β, then ReLU.
      a = a.map((v, i) => {
        const ch = Math.floor(i / 1024);
        const norm =
          (v - at(weight(w, "bn1.running_mean"), ch)) / Math.sqrt(at(weight(w, "bn1.running_var"), ch) + 1e-5);
        return Math.max(0, at(weight(w, "bn1.weight"), ch) * norm + at(weight(w, "bn1.bias"), ch));
      });
      const p = new Float32Array(8 * 16 * 16);
      for (let ch = 0; ch < 8; ch++)
        for (let r = 0; r < 16; r++)
          for (let c = 0; c < 16; c++) {
            const base = ch * 1024 + 2 * r * 32 + 2 * c;
            p[(ch * 16 + r) * 16 + c] = Math.max(at(a, base), at(a, base + 1), at(a, base + 32), at(a, base + 33));
          }
      const b = conv(p, 8, 16, "conv2", 16, true).map((v) => Math.max(0, v));
      const g = Array.from(
        { length: 16 },
        (_, ch) => b.subarray(ch * 256, ch * 256 + 256).reduce((s, v) => s + v, 0) / 256,
      );
      const got = (out.logits?.data as Float32Array).subarray(n * 10, n * 10 + 10);
      for (let j = 0; j < 10; j++) {
        let s = at(weight(w, "fc.bias"), j);
        for (let i = 0; i < 16; i++) s += at(g, i) * at(weight(w, "fc.weight"), j * 16 + i);
        expect(at(got, j)).toBeCloseTo(s, 5);
      }
    }
  });

  it("the same seed gives the same bytes", () => {
    expect(sha(buildTinyCnn(opts(5)))).toBe(sha(bytes));
  });
});

describe("tiny transformer (a 2-layer GPT-2)", () => {
  const bytes = buildTinyTransformer(opts(5));
  const ids = (batch: number, seq: number, last = 7) =>
    new ort.Tensor(
      "int64",
      BigInt64Array.from({ length: batch * seq }, (_, i) => BigInt(i % seq === seq - 1 ? last : (i * 13) % 128)),
      [batch, seq],
    );

  it("has 31,616 parameters with the LM head tied to the 128×32 token table (one initializer)", () => {
    // wte 128·32 = 4,096; wpe 64·32 = 2,048; per layer: ln_1 64 + c_attn 32·96+96 = 3,168 + c_proj 32·32+32 = 1,056
    // + ln_2 64 + c_fc 32·128+128 = 4,224 + c_proj 128·32+32 = 4,128 → 12,704; two layers 25,408; ln_f 64.
    // 4,096 + 2,048 + 25,408 + 64 = 31,616.
    const g = decodeOnnxModel(bytes);
    expect(countParameters(g).parameters).toBe(31_616);
    // The embedding's Gather and the head's Gemm read one and the same initializer; no separate head weight.
    const head = g.nodes.find((n) => n.name === "lm_head");
    expect(head?.inputs[1]).toBe("transformer.wte.weight");
    expect(g.nodes.some((n) => n.opType === "Gather" && n.inputs[0] === "transformer.wte.weight")).toBe(true);
    expect(g.initializers.filter((i) => i.name.startsWith("lm_head"))).toEqual([]);
  });

  it("runs at batch 1 and 4 (sequence 16) with logits [batch, 16, 128]", async () => {
    for (const batch of [1, 4]) {
      const out = await run(bytes, { input_ids: ids(batch, 16) });
      expect(out.logits?.dims).toEqual([batch, 16, 128]);
      expect((out.logits?.data as Float32Array).every(Number.isFinite)).toBe(true);
    }
  });

  it("is causal: changing the last token changes only the last position's logits", async () => {
    const a = (await run(bytes, { input_ids: ids(1, 8, 7) })).logits?.data as Float32Array;
    const b = (await run(bytes, { input_ids: ids(1, 8, 99) })).logits?.data as Float32Array;
    expect(Array.from(a.subarray(0, 7 * 128))).toEqual(Array.from(b.subarray(0, 7 * 128)));
    expect(Array.from(a.subarray(7 * 128))).not.toEqual(Array.from(b.subarray(7 * 128)));
  });
});
