import { describe, expect, it } from "vitest";
import { generateInputs, modelMetadataSchema } from "./oip-inputs";

// The agent's metadata for the tiny CNN, as GET /v2/models/tiny-cnn answers it.
const tinyCnn = modelMetadataSchema.parse({
  name: "tiny-cnn",
  versions: ["1"],
  platform: "onnx_onnxv1",
  inputs: [{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }],
  outputs: [{ name: "logits", datatype: "FP32", shape: [-1, 10] }],
});

describe("generateInputs", () => {
  it("sets the dynamic batch dimension: batch 2 of [-1, 3, 32, 32] → [2, 3, 32, 32], 2·3·32·32·4 = 24 576 bytes", () => {
    const [input] = generateInputs(tinyCnn.inputs, { batch: 2, seed: 1 });
    expect(input).toMatchObject({ name: "input", datatype: "FP32", shape: [2, 3, 32, 32] });
    expect(input!.bytes.length).toBe(24_576);
  });

  it("draws N(0, 1) floats from the seed: same seed, same bytes; mean ≈ 0 and variance ≈ 1 over 3072 values", () => {
    const a = generateInputs(tinyCnn.inputs, { batch: 1, seed: 5 })[0]!;
    const b = generateInputs(tinyCnn.inputs, { batch: 1, seed: 5 })[0]!;
    const c = generateInputs(tinyCnn.inputs, { batch: 1, seed: 6 })[0]!;
    expect(a.bytes).toEqual(b.bytes);
    expect(a.bytes).not.toEqual(c.bytes);
    const values = new Float32Array(a.bytes.buffer);
    const mean = values.reduce((s, v) => s + v, 0) / values.length;
    const variance = values.reduce((s, v) => s + (v - mean) ** 2, 0) / values.length;
    // Standard errors: mean 1/√3072 ≈ 0.018, variance √(2/3072) ≈ 0.026.
    expect(Math.abs(mean)).toBeLessThan(0.08);
    expect(Math.abs(variance - 1)).toBeLessThan(0.12);
  });

  it("draws integer inputs (token ids) uniformly from [0, intHigh), and needs the shape of other dynamic dimensions", () => {
    const inputs = [{ name: "input_ids", datatype: "INT64", shape: [-1, -1] }];
    expect(() => generateInputs(inputs, { batch: 1, seed: 1 })).toThrow(
      expect.objectContaining({ code: "invalid_shape", parameter: "--shape input_ids" }),
    );
    const [ids] = generateInputs(inputs, { batch: 1, seed: 1, shapes: { input_ids: [2, 64] }, intHigh: 50 });
    const values = Array.from(new BigInt64Array(ids!.bytes.buffer), Number);
    expect(values.length).toBe(128);
    expect(values.every((v) => Number.isInteger(v) && v >= 0 && v < 50)).toBe(true);
    expect(new Set(values).size).toBeGreaterThan(30); // 128 draws from 50 values leave few unseen
  });

  it("takes raw bytes from a file when their length fits the shape", () => {
    const file = new Uint8Array(3 * 32 * 32 * 4).fill(7);
    expect(generateInputs(tinyCnn.inputs, { batch: 1, seed: 1, files: { input: file } })[0]!.bytes).toEqual(file);
    expect(() => generateInputs(tinyCnn.inputs, { batch: 2, seed: 1, files: { input: file } })).toThrow(
      expect.objectContaining({
        code: "invalid_input_file",
        message: expect.stringMatching(/12288 bytes; shape \[2,3,32,32\] of FP32 needs 24576/),
      }),
    );
  });

  it("rejects shapes that contradict the model and inputs it does not have", () => {
    expect(() => generateInputs(tinyCnn.inputs, { batch: 1, seed: 1, shapes: { input: [1, 3, 31, 32] } })).toThrow(
      /dimension 2 is 31, the model fixes it at 32/,
    );
    expect(() => generateInputs(tinyCnn.inputs, { batch: 1, seed: 1, shapes: { images: [1] } })).toThrow(
      /no input "images"/,
    );
    expect(() => generateInputs(tinyCnn.inputs, { batch: 0, seed: 1 })).toThrow(
      expect.objectContaining({ parameter: "--batch" }),
    );
    expect(() => generateInputs([{ name: "x", datatype: "BYTES", shape: [-1] }], { batch: 1, seed: 1 })).toThrow(
      expect.objectContaining({ code: "unsupported" }),
    );
  });
});
