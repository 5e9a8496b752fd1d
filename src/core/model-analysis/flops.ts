import { ModelAnalysisInputError } from "./errors";
import type { AttributeValue, GraphNode, InitializerInfo, OnnxModelGraph, SubGraph } from "./graph";
import { subGraphsOf } from "./graph-walk";

/**
 * FLOPs of one forward pass at the shapes given (the analysis runs the model at batch 1, so this is per sample):
 * 2 × multiply-accumulates for Conv, ConvTranspose, Gemm and MatMul and their quantized forms (QLinearConv,
 * ConvInteger, QLinearMatMul, MatMulInteger: integer MACs counted like float ones); one per window element for
 * pooling. Bodies are counted too: If as its larger branch, Loop as its body × the trip count, Scan as its body ×
 * the scanned length. Every other operator is listed as not counted rather than guessed.
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
  /** If nodes counted as their larger branch (which one runs depends on the input). */
  upperBounds: string[];
}

/** Shapes of the graph's tensors by name: graph inputs and node outputs from a run; initializers are added here. */
export type ShapeTable = ReadonlyMap<string, readonly number[]>;

const COUNTED = new Set([
  "Conv",
  "ConvTranspose",
  "Gemm",
  "MatMul",
  "QLinearConv",
  "ConvInteger",
  "QLinearMatMul",
  "MatMulInteger",
  "MaxPool",
  "AveragePool",
  "LpPool",
  "GlobalMaxPool",
  "GlobalAveragePool",
  "GlobalLpPool",
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
    case "Conv":
    case "ConvInteger":
    case "QLinearConv": {
      // Each output element is a dot product over (C_in / group) × kernel: W is [C_out, C_in/group, k1, k2, …].
      // QLinearConv takes W as input 3 (after x's scale and zero point).
      const y = need(lookup, node.outputs[0]);
      const w = need(lookup, node.inputs[node.opType === "QLinearConv" ? 3 : 1]);
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
    case "MatMul":
    case "MatMulInteger":
    case "QLinearMatMul": {
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

interface Tally {
  total: number;
  nodes: NodeFlops[];
  unresolved: FlopCount["unresolved"];
  notCounted: Map<string, OperatorTally>;
  upperBounds: string[];
}

const emptyTally = (): Tally => ({ total: 0, nodes: [], unresolved: [], notCounted: new Map(), upperBounds: [] });

function mergeInto(into: Tally, from: Tally, times = 1): void {
  into.total += from.total * times;
  for (const n of from.nodes) into.nodes.push({ ...n, flops: n.flops * times });
  into.unresolved.push(...from.unresolved);
  into.upperBounds.push(...from.upperBounds);
  for (const [key, t] of from.notCounted) {
    const entry = into.notCounted.get(key) ?? { ...t, nodes: 0 };
    entry.nodes += t.nodes;
    into.notCounted.set(key, entry);
  }
}

const CONTAINERS = new Set(["If", "Loop", "Scan"]);

function numericShape(shape: readonly (number | string | null)[] | null): readonly number[] | undefined {
  return shape && shape.every((d): d is number => typeof d === "number") ? shape : undefined;
}

/** A body's own shapes: its initializers, Constant outputs, numeric value_info, and what the caller binds. */
function bodyLookup(body: SubGraph, bound: ReadonlyMap<string, readonly number[]>, outer: Lookup): Lookup {
  const local = new Map<string, readonly number[]>();
  for (const info of [...body.valueInfo, ...body.inputs, ...body.outputs]) {
    const shape = numericShape(info.shape);
    if (shape) local.set(info.name, shape);
  }
  for (const init of body.initializers) local.set(init.name, init.dims);
  for (const n of body.nodes) {
    const value = n.attributes.value;
    if (n.opType === "Constant" && value?.kind === "tensor" && n.outputs[0]) local.set(n.outputs[0], value.dims);
  }
  for (const [name, shape] of bound) local.set(name, shape);
  return (name) => (name ? (local.get(name) ?? outer(name)) : undefined);
}

/** Integer scalars the file holds inline (initializers and Constant nodes), by name: Loop trip counts. */
function scalarsOf(initializers: readonly InitializerInfo[], nodes: readonly GraphNode[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const i of initializers) if (i.scalar !== undefined) out.set(i.name, i.scalar);
  for (const n of nodes) {
    const value = n.attributes.value;
    if (
      n.opType === "Constant" &&
      value?.kind === "tensor" &&
      value.initializer?.scalar !== undefined &&
      n.outputs[0]
    ) {
      out.set(n.outputs[0], value.initializer.scalar);
    }
  }
  return out;
}

function countContainer(
  node: GraphNode,
  label: string,
  lookup: Lookup,
  scalars: ReadonlyMap<string, number>,
  tally: Tally,
): void {
  const bodies = subGraphsOf(node);
  const bind = (
    names: readonly string[],
    shapes: ReadonlyArray<readonly number[] | undefined>,
  ): Map<string, readonly number[]> => {
    const m = new Map<string, readonly number[]>();
    names.forEach((name, i) => {
      const shape = shapes[i];
      if (name && shape) m.set(name, shape);
    });
    return m;
  };
  if (node.opType === "If") {
    // A branch's outputs are the If's outputs; which branch runs depends on the input, so the larger one counts.
    const branches = bodies.map(({ attribute, graph }) => {
      const t = emptyTally();
      const bound = bind(
        graph.outputs.map((o) => o.name),
        node.outputs.map((o) => lookup(o)),
      );
      countNodes(
        graph.nodes,
        bodyLookup(graph, bound, lookup),
        `${label}/${attribute}/`,
        scalarsOf(graph.initializers, graph.nodes),
        t,
      );
      return t;
    });
    if (branches.length === 0) return;
    const larger = branches.reduce((a, b) => (b.total > a.total ? b : a));
    mergeInto(tally, larger);
    // Operators without a formula are listed from every branch: they are all in the model.
    for (const other of branches)
      if (other !== larger) mergeInto(tally, { ...emptyTally(), notCounted: other.notCounted });
    if (branches.length > 1) tally.upperBounds.push(label);
    return;
  }
  const body = bodies[0]?.graph;
  if (body === undefined) return;
  if (node.opType === "Loop") {
    // Body inputs: iteration number, condition, then the loop-carried values (shaped like the Loop's inputs 2…).
    const carried = node.inputs.slice(2).map((name) => lookup(name));
    const bound = bind(
      body.inputs.map((i) => i.name),
      [[], [], ...carried],
    );
    const t = emptyTally();
    countNodes(
      body.nodes,
      bodyLookup(body, bound, lookup),
      `${label}/body/`,
      scalarsOf(body.initializers, body.nodes),
      t,
    );
    const trips = node.inputs[0] ? scalars.get(node.inputs[0]) : undefined;
    if (trips === undefined) {
      if (t.total > 0 || t.unresolved.length > 0)
        tally.unresolved.push({ node: label, opType: "Loop", missing: `${node.inputs[0] || "M"} (trip count)` });
      mergeInto(tally, { ...t, total: 0, nodes: [] });
      return;
    }
    mergeInto(tally, t, trips);
    return;
  }
  // Scan: the first (inputs − num_scan_inputs) are state; each scan input is sliced along its axis per iteration.
  const numScan = intAttr(node.attributes, "num_scan_inputs", 0);
  const numState = node.inputs.length - numScan;
  const axes = intsAttr(node.attributes, "scan_input_axes") ?? new Array<number>(numScan).fill(0);
  let iterations: number | undefined;
  const shapes: Array<readonly number[] | undefined> = node.inputs.map((name, i) => {
    const shape = lookup(name);
    if (i < numState || shape === undefined) return shape;
    const axis = ((axes[i - numState] ?? 0) + shape.length) % Math.max(shape.length, 1);
    iterations ??= shape[axis];
    return shape.filter((_, k) => k !== axis);
  });
  const t = emptyTally();
  countNodes(
    body.nodes,
    bodyLookup(
      body,
      bind(
        body.inputs.map((i) => i.name),
        shapes,
      ),
      lookup,
    ),
    `${label}/body/`,
    scalarsOf(body.initializers, body.nodes),
    t,
  );
  if (iterations === undefined) {
    if (t.total > 0 || t.unresolved.length > 0)
      tally.unresolved.push({
        node: label,
        opType: "Scan",
        missing: `${node.inputs[numState] ?? "scan input"} (scanned length)`,
      });
    mergeInto(tally, { ...t, total: 0, nodes: [] });
    return;
  }
  mergeInto(tally, t, iterations);
}

function countNodes(
  nodes: readonly GraphNode[],
  lookup: Lookup,
  prefix: string,
  scalars: ReadonlyMap<string, number>,
  tally: Tally,
): void {
  nodes.forEach((node, index) => {
    const label = `${prefix}${node.name || `${node.opType}_${index}`}`;
    if (node.domain === "" && CONTAINERS.has(node.opType)) {
      countContainer(node, label, lookup, scalars, tally);
      return;
    }
    if (node.domain !== "" || !COUNTED.has(node.opType)) {
      const key = `${node.domain}\u0000${node.opType}`;
      const t = tally.notCounted.get(key) ?? { opType: node.opType, domain: node.domain, nodes: 0 };
      t.nodes += 1;
      tally.notCounted.set(key, t);
      return;
    }
    try {
      const flops = nodeFlops(node, lookup);
      tally.total += flops;
      tally.nodes.push({ node: label, opType: node.opType, flops });
    } catch (error) {
      if (!(error instanceof MissingShape)) throw error;
      tally.unresolved.push({ node: label, opType: node.opType, missing: error.tensor });
    }
  });
}

export function countFlops(graph: OnnxModelGraph, shapes: ShapeTable): FlopCount {
  for (const [name, shape] of shapes) {
    if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0)) {
      throw new ModelAnalysisInputError(
        "BAD_SHAPE",
        "shapes",
        `tensor "${name}" has a dimension that is not a non-negative integer: [${shape.join(", ")}]`,
      );
    }
  }
  const initializerDims = new Map(graph.initializers.map((i) => [i.name, i.dims] as const));
  const lookup: Lookup = (name) => (name ? (shapes.get(name) ?? initializerDims.get(name)) : undefined);

  const tally = emptyTally();
  countNodes(graph.nodes, lookup, "", scalarsOf(graph.initializers, graph.nodes), tally);
  const byOp = new Map<string, { opType: string; nodes: number; flops: number }>();
  for (const n of tally.nodes) {
    const entry = byOp.get(n.opType) ?? { opType: n.opType, nodes: 0, flops: 0 };
    entry.nodes += 1;
    entry.flops += n.flops;
    byOp.set(n.opType, entry);
  }
  return {
    total: tally.total,
    byOperator: [...byOp.values()].sort((a, b) => b.flops - a.flops || a.opType.localeCompare(b.opType)),
    nodes: tally.nodes,
    notCounted: [...tally.notCounted.values()].sort((a, b) => b.nodes - a.nodes || a.opType.localeCompare(b.opType)),
    unresolved: tally.unresolved,
    upperBounds: tally.upperBounds,
  };
}
