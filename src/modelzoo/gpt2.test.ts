import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { countParameters } from "@/core/model-analysis/parameters";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { removeOrtDebugLog } from "@/lib/onnx/ort-debug-log";
import { buildGpt2, type Gpt2Config } from "./gpt2";

afterAll(() => removeOrtDebugLog());

/** GPT-2's builder at another toy size (3 heads of 8, one layer); GPT-2 small itself is in the heavy suite. */
const TOY: Gpt2Config = { vocab: 50, positions: 20, hidden: 24, layers: 1, heads: 3, layerNormEpsilon: 1e-5 };

describe("GPT-2 builder (toy size)", () => {
  const bytes = buildGpt2(TOY, { seed: 9, producerVersion: "t" });

  it("has 8,952 parameters", () => {
    // wte 50·24 = 1,200; wpe 20·24 = 480; the layer: ln_1 48 + c_attn 24·72 + 72 = 1,800 + c_proj 24·24 + 24 = 600
    // + ln_2 48 + c_fc 24·96 + 96 = 2,400 + c_proj 96·24 + 24 = 2,328 → 7,224; ln_f 48. Total 8,952.
    expect(countParameters(decodeOnnxModel(bytes)).parameters).toBe(8_952);
  });

  it("runs up to its 20 positions and refuses a longer context", async () => {
    const s = await ort.InferenceSession.create(bytes);
    const ids = (seq: number) =>
      new ort.Tensor(
        "int64",
        BigInt64Array.from({ length: 2 * seq }, (_, i) => BigInt(i % 50)),
        [2, seq],
      );
    expect((await s.run({ input_ids: ids(20) })).logits?.dims).toEqual([2, 20, 50]);
    await expect(s.run({ input_ids: ids(21) })).rejects.toThrow();
    await s.release();
  });
});
