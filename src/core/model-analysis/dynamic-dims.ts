import { ModelAnalysisInputError } from "./errors";
import type { OnnxModelGraph } from "./graph";

/**
 * Which input dimensions are not fixed by the file. Axis 0 of an input is the batch dimension (the profiler
 * varies it); a symbolic name found at axis 0 is the batch wherever else it appears. Every other dynamic
 * dimension (a sequence length, an image size) must be given a value before the model can be profiled.
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
  /** Inputs whose rank the file does not give: they cannot be run without a shape from elsewhere. */
  unknownRank: string[];
}

export function findDynamicDims(graph: OnnxModelGraph): DynamicDims {
  const batchSymbols = new Set<string>();
  for (const input of graph.inputs) {
    const first = input.shape?.[0];
    if (typeof first === "string") batchSymbols.add(first);
  }
  const dims: DynamicDim[] = [];
  const unknownRank: string[] = [];
  for (const input of graph.inputs) {
    if (input.shape === null) {
      unknownRank.push(input.name);
      continue;
    }
    input.shape.forEach((dim, axis) => {
      if (typeof dim === "number") return;
      const symbol = dim;
      const key = symbol ?? `${input.name}[${axis}]`;
      const isBatch = axis === 0 || (symbol !== null && batchSymbols.has(symbol));
      dims.push({ input: input.name, axis, symbol, key, role: isBatch ? "batch" : "fix" });
    });
  }
  const mustFix = [...new Set(dims.filter((d) => d.role === "fix").map((d) => d.key))];
  return { dims, mustFix, unknownRank };
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
): ConcreteInput[] {
  if (!Number.isSafeInteger(batch) || batch < 1) {
    throw new ModelAnalysisInputError("BAD_DIM_VALUE", "batch", `must be a positive integer, got ${batch}`);
  }
  for (const [key, value] of Object.entries(values)) {
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ModelAnalysisInputError("BAD_DIM_VALUE", "values", `dimension "${key}" must be a positive integer, got ${value}`);
    }
  }
  const dynamic = findDynamicDims(graph);
  if (dynamic.unknownRank.length > 0) {
    throw new ModelAnalysisInputError("UNKNOWN_RANK", "graph", `the file gives no shape for input(s) ${dynamic.unknownRank.join(", ")}`);
  }
  const missing = dynamic.mustFix.filter((key) => values[key] === undefined);
  if (missing.length > 0) {
    throw new ModelAnalysisInputError("UNFIXED_DIMS", "values", `dynamic dimension(s) need a value before the model can run: ${missing.join(", ")}`);
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
