import { ModelAnalysisInputError } from "./errors";
import type { Dim } from "./graph";

/**
 * How a model is served, decided from its declared input and output shapes alone, the same way by the control
 * plane (from the decoded file) and by the agent (from ONNX Runtime's metadata): each tensor's batch axis and which
 * other dimensions need a value before the model can run.
 *
 * The batch dimension is the leading dimension of the first input whose leading dimension is dynamic; its symbol
 * (e.g. "batch", "N") marks the batch axis of every other tensor wherever it appears (state shaped
 * [layers, batch, hidden] has it on axis 1). When that leading dimension has no name, unnamed leading dimensions
 * are the batch. A user may override any tensor's axis, or say it has none. A model where some input or output has
 * no batch axis (a scalar sample rate, shared state) cannot be batched: requests are not concatenated, and each
 * instance runs one request at a time (batch 1 per instance, like Triton's max_batch_size 0).
 */
export interface AxisTensor {
  name: string;
  /** null when the file gives no rank. */
  shape: readonly Dim[] | null;
}

/** Per tensor name: the batch axis, or null for "this tensor has no batch axis". */
export type BatchAxisOverrides = Readonly<Record<string, number | null>>;

export interface DimensionToFix {
  /** How plans and forms name it: the symbol, or `tensor[axis]` for an unnamed dimension. */
  key: string;
  /** Readable: `x[2] "p2o.DynamicDimension.1"` (the first tensor and axis where it appears). */
  label: string;
  tensor: string;
  axis: number;
}

export interface TensorAxes {
  name: string;
  role: "input" | "output";
  /** null when the tensor has no batch axis (or, for an output of unknown rank, axis 0 is assumed). */
  batchAxis: number | null;
  /** Keys of the dimensions of this tensor that need a value, by axis (inputs only). */
  fixed: Array<{ axis: number; key: string }>;
}

export type Batching = { batchable: true } | { batchable: false; tensor: string | null; reason: string };

export interface ServingAxes {
  /** The batch symbol, null when the batch dimension is unnamed or there is none. */
  batchSymbol: string | null;
  inputs: TensorAxes[];
  outputs: TensorAxes[];
  mustFix: DimensionToFix[];
  batching: Batching;
}

const isDynamic = (d: Dim | undefined): boolean => d === null || typeof d === "string";

function describe(shape: readonly Dim[] | null): string {
  return shape === null ? "unknown rank" : `[${shape.map((d) => (d === null ? "?" : String(d))).join(", ")}]`;
}

function checkOverride(tensor: AxisTensor, axis: number | null): void {
  if (axis === null) return;
  if (!Number.isSafeInteger(axis) || axis < 0) {
    throw new ModelAnalysisInputError(
      "BAD_BATCH_AXIS",
      `batchAxes.${tensor.name}`,
      `the batch axis must be a whole number from 0, got ${axis}`,
    );
  }
  if (tensor.shape === null) return;
  if (axis >= tensor.shape.length) {
    throw new ModelAnalysisInputError(
      "BAD_BATCH_AXIS",
      `batchAxes.${tensor.name}`,
      `tensor "${tensor.name}" has ${tensor.shape.length} dimensions ${describe(tensor.shape)}; axis ${axis} does not exist`,
    );
  }
  if (!isDynamic(tensor.shape[axis])) {
    throw new ModelAnalysisInputError(
      "BAD_BATCH_AXIS",
      `batchAxes.${tensor.name}`,
      `tensor "${tensor.name}" dimension ${axis} is fixed at ${tensor.shape[axis]} ${describe(tensor.shape)}; a batch axis must be dynamic`,
    );
  }
}

export function servingAxes(
  inputs: readonly AxisTensor[],
  outputs: readonly AxisTensor[],
  overrides: BatchAxisOverrides = {},
): ServingAxes {
  const known = new Map([...inputs, ...outputs].map((t) => [t.name, t] as const));
  for (const [name, axis] of Object.entries(overrides)) {
    const tensor = known.get(name);
    if (!tensor)
      throw new ModelAnalysisInputError(
        "BAD_BATCH_AXIS",
        `batchAxes.${name}`,
        `the model has no input or output named "${name}" (it has ${[...known.keys()].join(", ")})`,
      );
    checkOverride(tensor, axis);
  }
  // The batch dimension: the first input with a dynamic leading dimension (an override on it counts first).
  const defining = inputs.find((t) =>
    overrides[t.name] !== undefined ? overrides[t.name] !== null : isDynamic(t.shape?.[0]),
  );
  const definingAxis = defining ? (overrides[defining.name] ?? 0) : null;
  const batchDim = defining && definingAxis !== null ? defining.shape?.[definingAxis] : undefined;
  const batchSymbol = typeof batchDim === "string" ? batchDim : null;
  const hasBatch = defining !== undefined;

  const batchAxisOf = (t: AxisTensor, role: "input" | "output"): number | null => {
    const override = overrides[t.name];
    if (override !== undefined) return override;
    if (!hasBatch) return null;
    if (t.shape === null) return role === "output" ? 0 : null;
    if (batchSymbol !== null) {
      const axis = t.shape.indexOf(batchSymbol);
      return axis >= 0 ? axis : null;
    }
    return t.shape.length > 0 && t.shape[0] === null ? 0 : null;
  };

  const mustFix = new Map<string, DimensionToFix>();
  const describeTensor = (t: AxisTensor, role: "input" | "output"): TensorAxes => {
    const batchAxis = batchAxisOf(t, role);
    const fixed: TensorAxes["fixed"] = [];
    if (role === "input") {
      (t.shape ?? []).forEach((d, axis) => {
        if (!isDynamic(d) || axis === batchAxis) return;
        // The batch symbol elsewhere in a tensor (a [batch, batch] mask) takes the batch's size, not a value.
        if (batchSymbol !== null && d === batchSymbol) return;
        const key = typeof d === "string" ? d : `${t.name}[${axis}]`;
        fixed.push({ axis, key });
        if (!mustFix.has(key))
          mustFix.set(key, {
            key,
            tensor: t.name,
            axis,
            label: typeof d === "string" ? `${t.name}[${axis}] "${d}"` : `${t.name}[${axis}]`,
          });
      });
    }
    return { name: t.name, role, batchAxis, fixed };
  };
  const ins = inputs.map((t) => describeTensor(t, "input"));
  const outs = outputs.map((t) => describeTensor(t, "output"));

  let batching: Batching = { batchable: true };
  const unknownRank = inputs.find((t) => t.shape === null);
  const noAxis = [...ins, ...outs].find((t) => t.batchAxis === null);
  if (unknownRank) {
    batching = {
      batchable: false,
      tensor: unknownRank.name,
      reason: `input "${unknownRank.name}" has no declared shape, so it cannot be concatenated`,
    };
  } else if (!hasBatch) {
    batching = { batchable: false, tensor: null, reason: "no input has a dynamic leading dimension (a batch axis)" };
  } else if (noAxis) {
    const shape = known.get(noAxis.name)?.shape ?? null;
    batching = {
      batchable: false,
      tensor: noAxis.name,
      reason: `${noAxis.role} "${noAxis.name}" ${describe(shape)} has no batch axis${batchSymbol ? ` (no "${batchSymbol}" dimension)` : ""}, so requests cannot be concatenated`,
    };
  }
  return { batchSymbol, inputs: ins, outputs: outs, mustFix: [...mustFix.values()], batching };
}

/**
 * Checks a set of dimension values against what the model needs: every dimension to fix has a positive whole
 * value, and no value names a dimension the model does not have. Throws naming the tensor and dimension.
 */
export function checkDimensionValues(
  axes: ServingAxes,
  values: Readonly<Record<string, number>>,
  parameter = "dimensions",
): void {
  const keys = new Set(axes.mustFix.map((d) => d.key));
  for (const [key, value] of Object.entries(values)) {
    if (!keys.has(key)) {
      const wanted = axes.mustFix.length
        ? `it needs ${axes.mustFix.map((d) => d.label).join(", ")}`
        : "it has no dynamic dimension to fix besides the batch";
      throw new ModelAnalysisInputError(
        "UNKNOWN_DIM",
        `${parameter}.${key}`,
        `the model has no dynamic dimension "${key}" (${wanted})`,
      );
    }
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new ModelAnalysisInputError(
        "BAD_DIM_VALUE",
        `${parameter}.${key}`,
        `dimension "${key}" must be a positive whole number, got ${value}`,
      );
    }
  }
  const missing = axes.mustFix.filter((d) => values[d.key] === undefined);
  if (missing.length > 0) {
    throw new ModelAnalysisInputError(
      "UNFIXED_DIMS",
      `${parameter}.${missing[0]!.key}`,
      `dynamic dimension(s) need a value: ${missing.map((d) => d.label).join(", ")}`,
    );
  }
}

/** A tensor's concrete shape: its batch axis at `batch`, the dimensions to fix at their values, fixed ones as declared. */
export function concreteShape(
  tensor: AxisTensor,
  axes: TensorAxes,
  batch: number,
  values: Readonly<Record<string, number>>,
  batchSymbol: string | null,
): number[] {
  return (tensor.shape ?? []).map((d, axis) => {
    if (typeof d === "number" && d >= 0) return d;
    if (axis === axes.batchAxis || (batchSymbol !== null && d === batchSymbol)) return batch;
    const key = axes.fixed.find((f) => f.axis === axis)?.key;
    const value = key !== undefined ? values[key] : undefined;
    if (value === undefined)
      throw new ModelAnalysisInputError(
        "UNFIXED_DIMS",
        `dimensions.${key ?? `${tensor.name}[${axis}]`}`,
        `tensor "${tensor.name}" dimension ${axis}${typeof d === "string" ? ` "${d}"` : ""} is dynamic and has no value`,
      );
    return value;
  });
}

/**
 * Why a serving plan cannot run this model, or null: a batch above 1 for a model that cannot be batched (naming
 * the tensor that prevents it), or a dimension to fix that the plan gives no value.
 */
export function planProblem(
  axes: ServingAxes,
  plan: {
    instances: ReadonlyArray<{ batch: number }>;
    batchSize?: number;
    dimensions?: Readonly<Record<string, number>>;
  },
): string | null {
  if (!axes.batching.batchable) {
    const b = Math.max(...plan.instances.map((i) => i.batch));
    if (b > 1)
      return `this model cannot be batched (${axes.batching.reason}): every instance must take batch 1, the plan gives b = ${b}`;
  }
  const missing = axes.mustFix.filter((d) => plan.dimensions?.[d.key] === undefined);
  if (missing.length > 0)
    return `dynamic dimension(s) need a value in the plan's "dimensions": ${missing.map((d) => d.label).join(", ")}`;
  return null;
}
