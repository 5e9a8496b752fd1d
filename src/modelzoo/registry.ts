import { PACKRAT_METADATA } from "@/core/model-analysis/summarize";
import { BERT_BASE, buildBert } from "./bert";
import { ModelZooError } from "./errors";
import { buildGpt2, GPT2_SMALL } from "./gpt2";
import type { Dim, ElemType } from "./graph-builder";
import { buildMobilenetV2 } from "./mobilenet-v2";
import { PRNG_NAME } from "./weight-stream";
import { buildResnet50 } from "./resnet50";
import { buildTinyCnn, buildTinyMlp, buildTinyTransformer } from "./tiny-models";

/** The label shown wherever a zoo model appears: its latency is the real architecture's, its outputs are noise. */
export const SYNTHETIC_WEIGHTS_LABEL = "synthetic weights";

export interface ZooTensor {
  name: string;
  dataType: ElemType;
  shape: Dim[];
}

export interface ZooEntry {
  name: string;
  title: string;
  description: string;
  /** Bumped whenever the builder's output bytes change; part of the file's metadata and of the CLI's cache key. */
  builderVersion: number;
  defaultSeed: number;
  inputs: ZooTensor[];
  outputs: ZooTensor[];
  /** Values for dynamic dimensions other than the batch (the batch is what a profiler varies). */
  dimDefaults: Record<string, number>;
  /** The architecture's published parameter count (torchvision / Hugging Face), which the build must match. */
  parameters: number;
  weights: typeof SYNTHETIC_WEIGHTS_LABEL;
  /** Large enough (hundreds of MB) that only the heavy test suite builds it. */
  heavy: boolean;
  build(seed?: number): Uint8Array;
}

export const DEFAULT_SEED = 2311;

type Builder = (options: { seed: number; producerVersion: string; metadata: Record<string, string> }) => Uint8Array;

interface Definition extends Omit<ZooEntry, "build" | "weights" | "defaultSeed"> {
  builder: Builder;
}

function entry(d: Definition): ZooEntry {
  const { builder, ...rest } = d;
  return {
    ...rest,
    defaultSeed: DEFAULT_SEED,
    weights: SYNTHETIC_WEIGHTS_LABEL,
    build(seed = DEFAULT_SEED) {
      const metadata = {
        [PACKRAT_METADATA.zooName]: d.name,
        [PACKRAT_METADATA.builderVersion]: String(d.builderVersion),
        [PACKRAT_METADATA.seed]: String(seed),
        [PACKRAT_METADATA.weights]: "synthetic",
        [PACKRAT_METADATA.dimDefaults]: JSON.stringify(d.dimDefaults),
        "packrat.zoo.prng": PRNG_NAME,
      };
      return builder({ seed, producerVersion: `${d.name}@${d.builderVersion}`, metadata });
    },
  };
}

const image = (name = "input"): ZooTensor => ({ name, dataType: "float32", shape: ["batch", 3, 224, 224] });
const tokens = (name: string): ZooTensor => ({ name, dataType: "int64", shape: ["batch", "sequence"] });

export const ZOO: readonly ZooEntry[] = [
  entry({
    name: "tiny-mlp",
    title: "Tiny MLP",
    description: "64 → 128 → 64 → 10, ReLU; for fast tests.",
    builderVersion: 1,
    inputs: [{ name: "input", dataType: "float32", shape: ["batch", 64] }],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", 10] }],
    dimDefaults: {},
    parameters: 17_226,
    heavy: false,
    builder: buildTinyMlp,
  }),
  entry({
    name: "tiny-cnn",
    title: "Tiny CNN",
    description: "Two 3×3 convolutions with BN and pooling on 3×32×32; for fast tests.",
    builderVersion: 1,
    inputs: [{ name: "input", dataType: "float32", shape: ["batch", 3, 32, 32] }],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", 10] }],
    dimDefaults: {},
    parameters: 1_570,
    heavy: false,
    builder: buildTinyCnn,
  }),
  entry({
    name: "tiny-transformer",
    title: "Tiny transformer",
    description: "A 2-layer GPT-2 (d = 32, 2 heads, 128-token vocabulary); for fast tests.",
    builderVersion: 1,
    inputs: [tokens("input_ids")],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", "sequence", 128] }],
    dimDefaults: { sequence: 16 },
    parameters: 31_616,
    heavy: false,
    builder: buildTinyTransformer,
  }),
  entry({
    name: "mobilenet-v2",
    title: "MobileNetV2 1.0",
    description: "torchvision's MobileNetV2, 224×224, 1000 classes.",
    builderVersion: 1,
    inputs: [image()],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", 1000] }],
    dimDefaults: {},
    parameters: 3_504_872,
    heavy: false,
    builder: buildMobilenetV2,
  }),
  entry({
    name: "resnet50",
    title: "ResNet-50",
    description: "torchvision's ResNet-50 (v1.5), 224×224, 1000 classes.",
    builderVersion: 1,
    inputs: [image()],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", 1000] }],
    dimDefaults: {},
    parameters: 25_557_032,
    heavy: false,
    builder: buildResnet50,
  }),
  entry({
    name: "bert-base",
    title: "BERT-base",
    description: "BERT-base uncased encoder with pooler (12 layers, d = 768).",
    builderVersion: 1,
    inputs: [tokens("input_ids"), tokens("attention_mask")],
    outputs: [
      { name: "last_hidden_state", dataType: "float32", shape: ["batch", "sequence", 768] },
      { name: "pooler_output", dataType: "float32", shape: ["batch", 768] },
    ],
    dimDefaults: { sequence: 128 },
    parameters: 109_482_240,
    heavy: true,
    builder: (o) => buildBert(BERT_BASE, o),
  }),
  entry({
    name: "gpt2-small",
    title: "GPT-2 small",
    description: "GPT-2 (124M) with the LM head tied to the token embedding; one forward pass over a context.",
    builderVersion: 1,
    inputs: [tokens("input_ids")],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", "sequence", 50257] }],
    dimDefaults: { sequence: 128 },
    parameters: 124_439_808,
    heavy: true,
    builder: (o) => buildGpt2(GPT2_SMALL, o),
  }),
];

export function zooEntry(name: string): ZooEntry {
  const found = ZOO.find((e) => e.name === name);
  if (found === undefined) {
    throw new ModelZooError(
      "UNKNOWN_MODEL",
      "name",
      `no zoo model "${name}"; known: ${ZOO.map((e) => e.name).join(", ")}`,
    );
  }
  return found;
}
