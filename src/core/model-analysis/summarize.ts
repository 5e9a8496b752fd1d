import { findDynamicDims, type DynamicDims } from "./dynamic-dims";
import type { BatchAxisOverrides } from "./serving-axes";
import type { OnnxModelGraph, OpsetImport, TensorInfo } from "./graph";
import type { OperatorTally } from "./flops";
import { countParameters, type ParameterCount } from "./parameters";

/** metadata_props keys the model zoo writes, so a file carries its own labels wherever it goes. */
export const PACKRAT_METADATA = {
  zooName: "packrat.zoo.name",
  builderVersion: "packrat.zoo.builder_version",
  seed: "packrat.zoo.seed",
  /** "synthetic": random weights; the latency is the real architecture's, the outputs are meaningless. */
  weights: "packrat.weights",
  /** JSON object of default values for dynamic dimensions other than the batch, e.g. {"sequence":128}. */
  dimDefaults: "packrat.dim_defaults",
} as const;

export interface ModelSummary {
  irVersion: number;
  producer: { name: string; version: string };
  opsets: OpsetImport[];
  /** Version of the default ("" / ai.onnx) domain; null if the file does not import it. */
  defaultOpset: number | null;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  parameters: ParameterCount;
  dynamicDims: DynamicDims;
  /** Values the file suggests for its dynamic dimensions (from packrat.dim_defaults); ignored if malformed. */
  dimDefaults: Record<string, number>;
  /** Every operator in the top-level graph, most frequent first. */
  operators: OperatorTally[];
  nodes: number;
  syntheticWeights: boolean;
  externalData: boolean;
  metadata: Record<string, string>;
}

function parseDimDefaults(text: string | undefined): Record<string, number> {
  if (text === undefined) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return {};
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return {};
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (typeof value === "number" && Number.isSafeInteger(value) && value >= 1) out[key] = value;
  }
  return out;
}

export function summarizeModel(graph: OnnxModelGraph, batchAxes: BatchAxisOverrides = {}): ModelSummary {
  const tallies = new Map<string, OperatorTally>();
  for (const node of graph.nodes) {
    const key = `${node.domain}\u0000${node.opType}`;
    const t = tallies.get(key) ?? { opType: node.opType, domain: node.domain, nodes: 0 };
    t.nodes += 1;
    tallies.set(key, t);
  }
  const parameters = countParameters(graph);
  const defaultOpset = graph.opsets.find((o) => o.domain === "" || o.domain === "ai.onnx")?.version ?? null;
  return {
    irVersion: graph.irVersion,
    producer: { name: graph.producerName, version: graph.producerVersion },
    opsets: graph.opsets,
    defaultOpset,
    inputs: graph.inputs,
    outputs: graph.outputs,
    parameters,
    dynamicDims: findDynamicDims(graph, batchAxes),
    dimDefaults: parseDimDefaults(graph.metadata[PACKRAT_METADATA.dimDefaults]),
    operators: [...tallies.values()].sort((a, b) => b.nodes - a.nodes || a.opType.localeCompare(b.opType)),
    nodes: graph.nodes.length,
    syntheticWeights: graph.metadata[PACKRAT_METADATA.weights] === "synthetic",
    externalData: parameters.externalInitializers.length > 0,
    metadata: graph.metadata,
  };
}
