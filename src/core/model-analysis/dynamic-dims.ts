import { ModelAnalysisInputError } from "./errors";
import type { OnnxModelGraph } from "./graph";

import { servingAxes, type BatchAxisOverrides, type Batching, type DimensionToFix } from "./serving-axes";

/**
 * Which input dimensions are not fixed by the file, as servingAxes (serving-axes.ts) decides them for the control
 * plane and the agent alike: each input's batch axis (the profiler varies it) and the dimensions that must be
 * given a value before the model can be profiled (a sequence length, an image size).
 */
export interface DynamicDim {
  input: string;
  axis: number;
  /** The dim_param, or null when the file leaves the dimension blank. */
  symbol: string | null;
  /** How a user names it when fixing it: the symbol, or `input[axis]` for an unnamed dimension. */
  key: string;
  role: "batch" | "fix";
}

export interface DynamicDims {
  dims: DynamicDim[];
  /** Distinct keys of the dimensions a user must fix, in input order. */
  mustFix: string[];
  /** The same with readable labels (tensor, axis, symbol). Absent in analyses stored before it existed. */
  toFix?: DimensionToFix[];
  /** Inputs whose rank the file does not give: they cannot be run without a shape from elsewhere. */
  unknownRank: string[];
  /** Each tensor's batch axis (null: none), inputs then outputs. */
  batchAxes?: Record<string, number | null>;
  /** Whether requests can be concatenated into batches, and if not, which tensor prevents it. */
  batching?: Batching;
}

export function findDynamicDims(graph: OnnxModelGraph, overrides: BatchAxisOverrides = {}): DynamicDims {
  const axes = servingAxes(graph.inputs, graph.outputs, overrides);
  const dims: DynamicDim[] = [];
  const unknownRank: string[] = [];
  graph.inputs.forEach((input, index) => {
    if (input.shape === null) {
      unknownRank.push(input.name);
      return;
    }
    const a = axes.inputs[index]!;
    input.shape.forEach((dim, axis) => {
      if (typeof dim === "number") return;
      const fix = a.fixed.find((f) => f.axis === axis);
      dims.push({
        input: input.name,
        axis,
        symbol: dim,
        key: fix?.key ?? dim ?? `${input.name}[${axis}]`,
        role: fix ? "fix" : "batch",
      });
    });
  });
  const batchAxes: Record<string, number | null> = {};
  for (const t of [...axes.inputs, ...axes.outputs]) batchAxes[t.name] = t.batchAxis;
  return {
    dims,
    mustFix: axes.mustFix.map((d) => d.key),
    toFix: axes.mustFix,
    unknownRank,
    batchAxes,
    batching: axes.batching,
  };
}

export interface ConcreteInput {
  name: string;
  dataType: string;
  shape: number[];
}

/**
 * Concrete input shapes at a given batch size: batch dimensions get `batch`, the others their value from
 * `values` (by key). Throws naming what is still unfixed.
 */
export function resolveInputShapes(
  graph: OnnxModelGraph,
  values: Readonly<Record<string, number>>,
  batch = 1,
  batchAxes: BatchAxisOverrides = {},
): ConcreteInput[] {
  if (!Number.isSafeInteger(batch) || batch < 1) {
    throw new ModelAnalysisInputError("BAD_DIM_VALUE", "batch", `must be a positive integer, got ${batch}`);
  }
  for (const [key, value] of Object.entries(values)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ModelAnalysisInputError(
        "BAD_DIM_VALUE",
        "values",
        `dimension "${key}" must be a positive integer, got ${value}`,
      );
    }
  }
  const dynamic = findDynamicDims(graph, batchAxes);
  if (dynamic.unknownRank.length > 0) {
    throw new ModelAnalysisInputError(
      "UNKNOWN_RANK",
      "graph",
      `the file gives no shape for input(s) ${dynamic.unknownRank.join(", ")}`,
    );
  }
  const missing = (dynamic.toFix ?? []).filter((d) => values[d.key] === undefined);
  if (missing.length > 0) {
    throw new ModelAnalysisInputError(
      "UNFIXED_DIMS",
      "values",
      `dynamic dimension(s) need a value before the model can run: ${missing.map((d) => d.label).join(", ")}`,
    );
  }
  const roles = new Map(dynamic.dims.map((d) => [`${d.input}\u0000${d.axis}`, d] as const));
  return graph.inputs.map((input) => ({
    name: input.name,
    dataType: input.dataType,
    shape: (input.shape ?? []).map((dim, axis) => {
      if (typeof dim === "number") return dim;
      const d = roles.get(`${input.name}\u0000${axis}`);
      if (d?.role === "batch") return batch;
      return values[d?.key ?? ""] ?? 1;
    }),
  }));
}
