import { describe, expect, it } from "vitest";
import { countParameters } from "@/core/model-analysis/parameters";
import { PACKRAT_METADATA } from "@/core/model-analysis/summarize";
import { decodeOnnxModel } from "@/lib/onnx/decode-model";
import { ModelZooError } from "./errors";
import { DEFAULT_SEED, SYNTHETIC_WEIGHTS_LABEL, ZOO, zooEntry } from "./registry";

describe("model zoo registry", () => {
  it("lists the paper's four benchmark models and three tiny ones, names unique", () => {
    expect(ZOO.map((e) => e.name)).toEqual([
      "tiny-mlp",
      "tiny-cnn",
      "tiny-transformer",
      "mobilenet-v2",
      "resnet50",
      "bert-base",
      "gpt2-small",
    ]);
    expect(ZOO.filter((e) => e.heavy).map((e) => e.name)).toEqual(["bert-base", "gpt2-small"]);
  });

  it("labels every entry as synthetic weights, with a builder version and default seed", () => {
    for (const e of ZOO) {
      expect(e.weights).toBe(SYNTHETIC_WEIGHTS_LABEL);
      expect(e.builderVersion).toBeGreaterThanOrEqual(1);
      expect(e.defaultSeed).toBe(DEFAULT_SEED);
    }
  });

  it("the published parameter counts: ResNet-50 25,557,032; MobileNetV2 3,504,872; BERT-base 109,482,240; GPT-2 124,439,808", () => {
    expect(zooEntry("resnet50").parameters).toBe(25_557_032);
    expect(zooEntry("mobilenet-v2").parameters).toBe(3_504_872);
    expect(zooEntry("bert-base").parameters).toBe(109_482_240);
    expect(zooEntry("gpt2-small").parameters).toBe(124_439_808);
  });

  it.each(["tiny-mlp", "tiny-cnn", "tiny-transformer"])(
    "%s: the built file matches its entry (interface, parameters, labels)",
    (name) => {
      const e = zooEntry(name);
      const g = decodeOnnxModel(e.build(77));
      expect(g.inputs).toEqual(e.inputs);
      expect(g.outputs).toEqual(e.outputs);
      expect(countParameters(g).parameters).toBe(e.parameters);
      expect(g.metadata[PACKRAT_METADATA.weights]).toBe("synthetic");
      expect(g.metadata[PACKRAT_METADATA.seed]).toBe("77");
      expect(g.metadata[PACKRAT_METADATA.builderVersion]).toBe(String(e.builderVersion));
      expect(JSON.parse(g.metadata[PACKRAT_METADATA.dimDefaults] ?? "null")).toEqual(e.dimDefaults);
    },
  );

  it("an unknown name is a typed error listing the known ones", () => {
    expect(() => zooEntry("resnet-51")).toThrow(ModelZooError);
    expect(() => zooEntry("resnet-51")).toThrow(/name: .*resnet50/);
  });
});
