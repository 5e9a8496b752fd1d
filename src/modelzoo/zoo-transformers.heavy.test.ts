import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { countParameters } from "@/core/model-analysis/parameters";
import { analyzeOnnxFile } from "@/lib/onnx/analyze-model";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { zooEntry } from "./registry";

/**
 * BERT-base and GPT-2 small (hundreds of MB each): `npm run test:heavy`. Exact parameter counts, reproducible
 * bytes, ONNX Runtime at batch 1 and 4 over 128 tokens, the masks' semantics, and FLOPs worked by hand.
 * One model file is held at a time; sessions load from the file, not from a second copy in memory.
 */
const dir = mkdtempSync(join(tmpdir(), "zoo-transformers-"));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  removeOrtDebugLog();
});

const sha256 = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");
const SEQ = 128;

function ids(batch: number, seq: number, tweak?: { from: number; value: number }): ort.Tensor {
  const data = BigInt64Array.from({ length: batch * seq }, (_, i) => {
    const pos = i % seq;
    return BigInt(tweak && pos >= tweak.from ? tweak.value : 101 + ((i * 7919) % 20000));
  });
  return new ort.Tensor("int64", data, [batch, seq]);
}

function ones(batch: number, seq: number, validUpTo = seq): ort.Tensor {
  return new ort.Tensor(
    "int64",
    BigInt64Array.from({ length: batch * seq }, (_, i) => (i % seq < validUpTo ? 1n : 0n)),
    [batch, seq],
  );
}

async function withSession<T>(path: string, body: (s: ort.InferenceSession) => Promise<T>): Promise<T> {
  const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 2, interOpNumThreads: 1 });
  try {
    return await body(session);
  } finally {
    await session.release();
  }
}

describe("BERT-base with pooler", () => {
  const entry = zooEntry("bert-base");
  const path = join(dir, "bert-base.onnx");
  let hash = "";
  let counts: ReturnType<typeof countParameters>;

  beforeAll(() => {
    const bytes = entry.build();
    hash = sha256(bytes);
    counts = countParameters(decodeOnnxModel(bytes));
    writeFileSync(path, bytes);
  });

  it("has 109,482,240 parameters", () => {
    // Embeddings (30,522 + 512 + 2)·768 + LN 1,536 = 23,837,184.
    // Per layer: Q, K, V, O 4·(768² + 768) = 2,362,368; LNs 3,072; FFN 768·3,072 + 3,072 + 3,072·768 + 768
    // = 4,722,432 → 7,087,872; × 12 = 85,054,464.  Pooler 768² + 768 = 590,592.
    // 23,837,184 + 85,054,464 + 590,592 = 109,482,240.
    expect(counts.parameters).toBe(109_482_240);
    expect(counts.weightBytes).toBe(109_482_240 * 4);
  });

  it("the same seed gives the same sha256", () => {
    expect(sha256(entry.build())).toBe(hash);
  });

  it("runs at batch 1 and 4 over 128 tokens with last_hidden_state [b,128,768] and pooler_output [b,768]", async () => {
    await withSession(path, async (s) => {
      for (const batch of [1, 4]) {
        const r = await s.run({ input_ids: ids(batch, SEQ), attention_mask: ones(batch, SEQ) });
        expect(r.last_hidden_state?.dims).toEqual([batch, SEQ, 768]);
        expect(r.pooler_output?.dims).toEqual([batch, 768]);
        expect((r.pooler_output?.data as Float32Array).every(Number.isFinite)).toBe(true);
      }
    });
  });

  it("the padding mask hides masked tokens: changing them leaves the unmasked positions' outputs unchanged", async () => {
    await withSession(path, async (s) => {
      const mask = ones(1, 32, 20);
      const a = await s.run({ input_ids: ids(1, 32), attention_mask: mask });
      const b = await s.run({ input_ids: ids(1, 32, { from: 20, value: 7 }), attention_mask: mask });
      const ha = a.last_hidden_state?.data as Float32Array;
      const hb = b.last_hidden_state?.data as Float32Array;
      // exp(−10,000 − max) underflows to exactly 0 in float32, so the visible rows are bit-identical.
      expect(Array.from(ha.subarray(0, 20 * 768))).toEqual(Array.from(hb.subarray(0, 20 * 768)));
      expect(Array.from(a.pooler_output?.data as Float32Array)).toEqual(
        Array.from(b.pooler_output?.data as Float32Array),
      );
    });
  });

  it("costs 22,348,431,360 FLOPs per 128-token sequence, by hand", async () => {
    // Per layer at S = 128, d = 768, 12 heads of 64: Q, K, V, O 4 · 2·128·768·768 = 603,979,776;
    // Q·Kᵀ and A·V 2 · 2·12·128·128·64 = 50,331,648; FFN 2 · 2·128·768·3,072 = 1,207,959,552
    // → 1,862,270,976; × 12 = 22,347,251,712. Pooler Gemm 2·768·768 = 1,179,648. Total 22,348,431,360.
    const a = await analyzeOnnxFile(path);
    if (a.flops.status !== "counted") throw new Error(a.flops.message);
    expect(a.dimValues).toEqual({ sequence: 128 });
    expect(a.flops.perSample.total).toBe(22_348_431_360);
    expect(a.summary.dynamicDims.mustFix).toEqual(["sequence"]);
  });
});

describe("GPT-2 small with a tied LM head", () => {
  const entry = zooEntry("gpt2-small");
  const path = join(dir, "gpt2-small.onnx");
  let hash = "";
  let graph: ReturnType<typeof decodeOnnxModel>;

  beforeAll(() => {
    const bytes = entry.build();
    hash = sha256(bytes);
    graph = decodeOnnxModel(bytes);
    writeFileSync(path, bytes);
  });

  it("has 124,439,808 parameters, the LM head reading the token embedding (one initializer)", () => {
    // wte 50,257·768 = 38,597,376; wpe 1,024·768 = 786,432; per layer LN 1,536 + c_attn 768·2,304 + 2,304
    // = 1,771,776 + c_proj 590,592 + LN 1,536 + c_fc 768·3,072 + 3,072 = 2,362,368 + c_proj 3,072·768 + 768
    // = 2,360,064 → 7,087,872; × 12 = 85,054,464; ln_f 1,536.  Total 124,439,808 (no separate head matrix).
    expect(countParameters(graph).parameters).toBe(124_439_808);
    expect(graph.nodes.find((n) => n.name === "lm_head")?.inputs[1]).toBe("transformer.wte.weight");
    expect(graph.initializers.filter((i) => i.dims[0] === 50257)).toHaveLength(1);
  });

  it("the same seed gives the same sha256", () => {
    expect(sha256(entry.build())).toBe(hash);
  });

  it("runs at batch 1 and 4 over 128 tokens with logits [b, 128, 50257]; causal", async () => {
    await withSession(path, async (s) => {
      for (const batch of [1, 4]) {
        const r = await s.run({ input_ids: ids(batch, SEQ) });
        expect(r.logits?.dims).toEqual([batch, SEQ, 50257]);
      }
      // Changing tokens from position 10 on leaves positions 0–9 bit-identical.
      const a = (await s.run({ input_ids: ids(1, 16) })).logits?.data as Float32Array;
      const b = (await s.run({ input_ids: ids(1, 16, { from: 10, value: 42 }) })).logits?.data as Float32Array;
      expect(Array.from(a.subarray(0, 10 * 50257))).toEqual(Array.from(b.subarray(0, 10 * 50257)));
      expect(Array.from(a.subarray(10 * 50257, 11 * 50257))).not.toEqual(
        Array.from(b.subarray(10 * 50257, 11 * 50257)),
      );
    });
  });

  it("costs 32,228,179,968 FLOPs per 128-token context, by hand", async () => {
    // Per layer: c_attn 2·128·768·2,304 = 452,984,832; Q·Kᵀ + A·V 50,331,648; c_proj 150,994,944;
    // MLP 1,207,959,552 → 1,862,270,976; × 12 = 22,347,251,712. Tied head 2·128·768·50,257 = 196,608·50,257 = 9,880,928,256.
    // Total 32,228,179,968 (≈ 2·P·n = 2·124.4M·128 = 31.9 G, the usual estimate).
    const a = await analyzeOnnxFile(path);
    if (a.flops.status !== "counted") throw new Error(a.flops.message);
    expect(a.flops.perSample.total).toBe(32_228_179_968);
  });
});
