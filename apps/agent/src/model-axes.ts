// The agent's view of a model's batch axes and dimensions to fix: the control plane's own function
// (servingAxes) applied to what ONNX Runtime reports, so both sides decide the same way.
import type { Dim } from "@packrat/core/model-analysis/graph";
import { servingAxes, type BatchAxisOverrides, type ServingAxes } from "@packrat/core/model-analysis/serving-axes";
import type { BatchLayout } from "./dispatcher";

export interface ShapedTensor {
  name: string;
  shape: readonly number[];
  symbolicDims: ReadonlyArray<string | undefined>;
}

/** ORT's shape (-1 for dynamic) and symbols back to the file's form: a size, a symbol, or null when unnamed. */
export function declaredDims(tensor: ShapedTensor): Dim[] {
  return tensor.shape.map((d, i) => (d >= 0 ? d : (tensor.symbolicDims[i] ?? null)));
}

export function modelAxes(
  inputs: readonly ShapedTensor[],
  outputs: readonly ShapedTensor[],
  overrides: BatchAxisOverrides = {},
): ServingAxes {
  const toAxis = (t: ShapedTensor) => ({ name: t.name, shape: declaredDims(t) });
  return servingAxes(inputs.map(toAxis), outputs.map(toAxis), overrides);
}

export function batchLayout(axes: ServingAxes): BatchLayout {
  if (!axes.batching.batchable) return { kind: "unbatched", reason: axes.batching.reason };
  const map = new Map<string, number>();
  for (const t of [...axes.inputs, ...axes.outputs]) map.set(t.name, t.batchAxis ?? 0);
  return { kind: "batched", axes: map };
}
