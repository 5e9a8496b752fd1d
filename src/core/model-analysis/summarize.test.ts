import { describe, expect, it } from "vitest";
import { emptyGraph, floatInit, tinyCnnGraph } from "./fixtures";
import { PACKRAT_METADATA, summarizeModel } from "./summarize";

describe("summarizeModel", () => {
  it("reports opset, producer, IR version, parameters and an operator census of the tiny CNN", () => {
    const s = summarizeModel(tinyCnnGraph());
    expect(s.defaultOpset).toBe(17);
    expect(s.irVersion).toBe(8);
    expect(s.producer).toEqual({ name: "hand", version: "1" });
    expect(s.parameters.parameters).toBe(1570);
    expect(s.nodes).toBe(9);
    // 2 Conv, 2 Relu, then one each, alphabetical within a count.
    expect(s.operators.map((o) => `${o.opType}×${o.nodes}`)).toEqual([
      "Conv×2",
      "Relu×2",
      "BatchNormalization×1",
      "Flatten×1",
      "Gemm×1",
      "GlobalAveragePool×1",
      "MaxPool×1",
    ]);
    expect(s.syntheticWeights).toBe(false);
    expect(s.externalData).toBe(false);
  });

  it("reads the zoo's labels: synthetic weights and default dimension values", () => {
    const s = summarizeModel(
      emptyGraph({
        metadata: {
          [PACKRAT_METADATA.weights]: "synthetic",
          [PACKRAT_METADATA.dimDefaults]: '{"sequence":128,"bad":-1,"x":"y"}',
        },
      }),
    );
    expect(s.syntheticWeights).toBe(true);
    expect(s.dimDefaults).toEqual({ sequence: 128 });
  });

  it("ignores malformed default dimensions; flags external data; null opset when ai.onnx is not imported", () => {
    const s = summarizeModel(
      emptyGraph({
        opsets: [{ domain: "com.microsoft", version: 1 }],
        metadata: { [PACKRAT_METADATA.dimDefaults]: "{not json" },
        initializers: [{ ...floatInit("w", [2]), external: true }],
      }),
    );
    expect(s.dimDefaults).toEqual({});
    expect(s.externalData).toBe(true);
    expect(s.defaultOpset).toBeNull();
  });
});
