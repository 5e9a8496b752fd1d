import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { countParameters } from "@/core/model-analysis/parameters";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { buildBert, type BertConfig } from "./bert";

afterAll(() => removeOrtDebugLog());

/** BERT-base's builder at a toy size (BERT-base itself is in zoo-transformers.heavy.test.ts). */
const TINY_BERT: BertConfig = {
  vocab: 100,
  positions: 32,
  typeVocab: 2,
  hidden: 32,
  layers: 2,
  heads: 2,
  intermediate: 64,
  layerNormEpsilon: 1e-12,
};

describe("BERT builder (toy size)", () => {
  const bytes = buildBert(TINY_BERT, { seed: 4, producerVersion: "t" });

  it("has 22,496 parameters", () => {
    // Embeddings (100 + 32 + 2)·32 + LN 64 = 4,352. Per layer: Q, K, V, O 4·(32·32 + 32) = 4,224; two LNs 128;
    // FFN 32·64 + 64 + 64·32 + 32 = 4,192 → 8,544; × 2 = 17,088. Pooler 32·32 + 32 = 1,056. Total 22,496.
    expect(countParameters(decodeOnnxModel(bytes)).parameters).toBe(22_496);
  });

  it("runs at batch 1 and 4; masked tokens do not change what the unmasked ones see", async () => {
    const s = await ort.InferenceSession.create(bytes);
    const ids = (batch: number, seq: number, last: bigint) =>
      new ort.Tensor(
        "int64",
        BigInt64Array.from({ length: batch * seq }, (_, i) => (i % seq >= seq - 2 ? last : BigInt(i % 90))),
        [batch, seq],
      );
    const mask = (batch: number, seq: number) =>
      new ort.Tensor(
        "int64",
        BigInt64Array.from({ length: batch * seq }, (_, i) => (i % seq >= seq - 2 ? 0n : 1n)),
        [batch, seq],
      );
    for (const batch of [1, 4]) {
      const r = await s.run({ input_ids: ids(batch, 10, 5n), attention_mask: mask(batch, 10) });
      expect(r.last_hidden_state?.dims).toEqual([batch, 10, 32]);
      expect(r.pooler_output?.dims).toEqual([batch, 32]);
    }
    const a = await s.run({ input_ids: ids(1, 10, 5n), attention_mask: mask(1, 10) });
    const b = await s.run({ input_ids: ids(1, 10, 77n), attention_mask: mask(1, 10) });
    const visible = (r: typeof a) => Array.from((r.last_hidden_state?.data as Float32Array).subarray(0, 8 * 32));
    expect(visible(a)).toEqual(visible(b));
    await s.release();
  });
});
