import { ModelAnalysisInputError } from "./errors";
import type { AttributeValue, GraphNode, OnnxModelGraph } from "./graph";

/**
 * FLOPs of one forward pass at the shapes given (the analysis runs the model at batch 1, so this is per sample):
 * 2 × multiply-accumulates for Conv, ConvTranspose, Gemm and MatMul; one per window element for pooling.
 * Every other operator is listed as not counted rather than guessed.
 */
export interface NodeFlops {
  node: string;
  opType: string;
  flops: number;
}

export interface OperatorTally {
  opType: string;
  domain: string;
  nodes: number;
}

export interface FlopCount {
  total: number;
  /** Counted FLOPs per operator type, largest first. */
  byOperator: Array<{ opType: string; nodes: number; flops: number }>;
  nodes: NodeFlops[];
  /** Operators with no formula here (elementwise, normalisation, data movement, custom domains…). */
  notCounted: OperatorTally[];
  /** Nodes with a formula whose shapes were missing, so they are not in `total`. */
  unresolved: Array<{ node: string; opType: string; missing: string }>;
}

/** Shapes of the graph's tensors by name: graph inputs and node outputs from a run; initializers are added here. */
export type ShapeTable = ReadonlyMap<string, readonly number[]>;

const COUNTED = new Set([
  "Conv", "ConvTranspose", "Gemm", "MatMul",
  "MaxPool", "AveragePool", "LpPool", "GlobalMaxPool", "GlobalAveragePool", "GlobalLpPool",
]);

function product(values: readonly number[]): number {
  let p = 1;
  for (const v of values) p *= v;
  return p;
}

function intAttr(attrs: Record<string, AttributeValue>, name: string, fallback: number): number {
  const a = attrs[name];
  return a?.kind === "int" ? a.value : fallback;
}

function intsAttr(attrs: Record<string, AttributeValue>, name: string): number[] | undefined {
  const a = attrs[name];
  return a?.kind === "ints" ? a.value : undefined;
}

type Lookup = (name: string | undefined) => readonly number[] | undefined;

class MissingShape extends Error {
  constructor(readonly tensor: string) {
    super(tensor);
  }
}

function need(lookup: Lookup, name: string | undefined): readonly number[] {
  const shape = lookup(name);
  if (shape === undefined) throw new MissingShape(name ?? "(absent input)");
  return shape;
}

function nodeFlops(node: GraphNode, lookup: Lookup): number {
  switch (node.opType) {
    case "Conv": {
      // Each output element is a dot product over (C_in / group) × kernel: W is [C_out, C_in/group, k1, k2, …].
      const y = need(lookup, node.outputs[0]);
      const w = need(lookup, node.inputs[1]);
      return 2 * product(y) * product(w.slice(1));
    }
    case "ConvTranspose": {
      // Each input element is scattered into (C_out / group) × kernel outputs: W is [C_in, C_out/group, k…].
      const x = need(lookup, node.inputs[0]);
      const w = need(lookup, node.inputs[1]);
      return 2 * product(x) * product(w.slice(1));
    }
    case "Gemm": {
      // Y = A·B with A [M, K] (or [K, M] when transA): each of the M×N outputs is a K-long dot product.
      const y = need(lookup, node.outputs[0]);
      const a = need(lookup, node.inputs[0]);
      const k = intAttr(node.attributes, "transA", 0) ? a[0] : a[1];
      if (a.length !== 2 || k === undefined) throw new MissingShape(`${node.inputs[0]} as a matrix`);
      return 2 * product(y) * k;
    }
    case "MatMul": {
      // numpy matmul: every output element is a dot product over A's last axis (a 1-D A is its own last axis).
      const y = need(lookup, node.outputs[0]);
      const a = need(lookup, node.inputs[0]);
      const k = a[a.length - 1];
      if (k === undefined) throw new MissingShape(`${node.inputs[0]} with at least one axis`);
      return 2 * product(y) * k;
    }
    case "MaxPool":
    case "AveragePool":
    case "LpPool": {
      const y = need(lookup, node.outputs[0]);
      const kernel = intsAttr(node.attributes, "kernel_shape");
      if (kernel === undefined) throw new MissingShape(`${node.name || node.opType}.kernel_shape`);
      return product(y) * product(kernel);
    }
    case "GlobalMaxPool":
    case "GlobalAveragePool":
    case "GlobalLpPool": {
      // The window is the whole spatial extent: one operation per input element.
      return product(need(lookup, node.inputs[0]));
    }
    default:
      return 0;
  }
}

export function countFlops(graph: OnnxModelGraph, shapes: ShapeTable): FlopCount {
  for (const [name, shape] of shapes) {
    if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new ModelAnalysisInputError("BAD_SHAPE", "shapes", `tensor "${name}" has a dimension that is not a non-negative integer: [${shape.join(", ")}]`);
    }
  }
  const initializerDims = new Map(graph.initializers.map((i) => [i.name, i.dims] as const));
  const lookup: Lookup = (name) => (name ? (shapes.get(name) ?? initializerDims.get(name)) : undefined);

  const nodes: NodeFlops[] = [];
  const unresolved: FlopCount["unresolved"] = [];
  const byOp = new Map<string, { opType: string; nodes: number; flops: number }>();
  const notCounted = new Map<string, OperatorTally>();
  let total = 0;

  graph.nodes.forEach((node, index) => {
    const label = node.name || `${node.opType}_${index}`;
    if (node.domain !== "" || !COUNTED.has(node.opType)) {
      const key = `${node.domain}\u0000${node.opType}`;
      const tally = notCounted.get(key) ?? { opType: node.opType, domain: node.domain, nodes: 0 };
      tally.nodes += 1;
      notCounted.set(key, tally);
      return;
    }
    let flops: number;
    try {
      flops = nodeFlops(node, lookup);
    } catch (error) {
      if (!(error instanceof MissingShape)) throw error;
      unresolved.push({ node: label, opType: node.opType, missing: error.tensor });
      return;
    }
    total += flops;
    nodes.push({ node: label, opType: node.opType, flops });
    const entry = byOp.get(node.opType) ?? { opType: node.opType, nodes: 0, flops: 0 };
    entry.nodes += 1;
    entry.flops += flops;
    byOp.set(node.opType, entry);
  });

  return {
    total,
    byOperator: [...byOp.values()].sort((a, b) => b.flops - a.flops || a.opType.localeCompare(b.opType)),
    nodes,
    notCounted: [...notCounted.values()].sort((a, b) => b.nodes - a.nodes || a.opType.localeCompare(b.opType)),
    unresolved,
  };
}
