import { elementTypeByName, packedBytes } from "./dtypes";
import type { OnnxModelGraph } from "./graph";

export interface ParameterCount {
  /** Elements of floating-point initializers, each initializer once, BatchNormalization running statistics excluded. */
  parameters: number;
  /** Bytes of every initializer (running statistics and integer constants included), as packed in raw_data. */
  weightBytes: number;
  initializers: number;
  /** Elements left out of `parameters` because they are BatchNormalization's running mean or variance (inputs 3–4). */
  batchNormStatistics: number;
  /** Initializers whose values live in external files. */
  externalInitializers: string[];
}

function elementCount(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

/**
 * Counts parameters the way the model zoo states them (torchvision's and Hugging Face's counts): trainable
 * floating-point tensors. BatchNormalization's running mean and variance are state, not parameters.
 */
export function countParameters(graph: OnnxModelGraph): ParameterCount {
  const runningStats = new Set<string>();
  for (const node of graph.nodes) {
    if (node.opType !== "BatchNormalization" || node.domain !== "") continue;
    for (const index of [3, 4]) {
      const name = node.inputs[index];
      if (name) runningStats.add(name);
    }
  }
  const seen = new Set<string>();
  let parameters = 0;
  let weightBytes = 0;
  let batchNormStatistics = 0;
  const externalInitializers: string[] = [];
  for (const init of graph.initializers) {
    // ONNX forbids duplicate initializer names; a malformed file that has them is still counted once.
    if (seen.has(init.name)) continue;
    seen.add(init.name);
    const elements = elementCount(init.dims);
    weightBytes += packedBytes(init.dataType, elements) ?? init.storedBytes;
    if (init.external) externalInitializers.push(init.name);
    if (!elementTypeByName(init.dataType)?.floatingPoint) continue;
    if (runningStats.has(init.name)) batchNormStatistics += elements;
    else parameters += elements;
  }
  return { parameters, weightBytes, initializers: seen.size, batchNormStatistics, externalInitializers };
}
