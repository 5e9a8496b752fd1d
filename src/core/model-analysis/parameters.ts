import { elementTypeByName, packedBytes } from "./dtypes";
import type { GraphNode, InitializerInfo, OnnxModelGraph } from "./graph";
import { allScopes } from "./graph-walk";

export interface ParameterCount {
  /**
   * Elements of the weights: floating-point tensors (initializers and Constant nodes, in every body), each once,
   * BatchNormalization running statistics and quantization scales excluded; plus integer tensors a quantized
   * operator takes as its weight or bias (int8 weights of QLinearConv, MatMulInteger…).
   */
  parameters: number;
  /** Bytes of every initializer (running statistics and integer constants included) and weight-like Constant, as packed. */
  weightBytes: number;
  /** Stored tensors counted: initializers plus Constant nodes that hold weights. */
  initializers: number;
  /** Elements left out of `parameters` because they are BatchNormalization's running mean or variance (inputs 3–4). */
  batchNormStatistics: number;
  /** Elements left out of `parameters` because they are quantization scales or zero points. */
  quantizationParameters: number;
  /** Of `initializers`, how many are Constant nodes (exporters such as Paddle2ONNX keep every weight there). */
  constantNodes: number;
  /** Of `initializers`, how many live in nested bodies (If/Loop/Scan). */
  inSubgraphs: number;
  /** Initializers whose values live in external files. */
  externalInitializers: string[];
}

function elementCount(dims: readonly number[]): number {
  let n = 1;
  for (const d of dims) n *= d;
  return n;
}

/** Input positions of quantized operators that hold weights (integer values that are the model's parameters). */
const QUANTIZED_WEIGHT_INPUTS: Record<string, number[]> = {
  QLinearConv: [0, 3, 8],
  QLinearMatMul: [0, 3],
  MatMulInteger: [0, 1],
  ConvInteger: [0, 1],
  DequantizeLinear: [0],
  QGemm: [0, 3, 6],
  MatMulIntegerToFloat: [0, 1],
  DynamicQuantizeMatMul: [1],
};
/** Input positions that hold scales and zero points: state of the quantization, not parameters. */
const QUANTIZATION_INPUTS: Record<string, number[]> = {
  QLinearConv: [1, 2, 4, 5, 6, 7],
  QLinearMatMul: [1, 2, 4, 5, 6, 7],
  MatMulInteger: [2, 3],
  ConvInteger: [2, 3],
  QuantizeLinear: [1, 2],
  DequantizeLinear: [1, 2],
  QGemm: [1, 2, 4, 5, 7, 8],
  MatMulIntegerToFloat: [2, 3, 4, 5],
  DynamicQuantizeMatMul: [2, 3],
};

/**
 * A Constant node's tensor when it is a weight: floating point with more than one element, or integer and taken
 * as a quantized weight. Single numbers (an epsilon, a scale) and integer shapes or axes are code, not weights.
 */
function constantTensor(node: GraphNode, quantizedWeights: ReadonlySet<string>): InitializerInfo | undefined {
  if (node.opType !== "Constant" || node.domain !== "") return undefined;
  const name = node.outputs[0] ?? "";
  const value = node.attributes.value;
  let tensor: InitializerInfo | undefined;
  if (value?.kind === "tensor") {
    tensor = value.initializer ?? { name, dataType: value.dataType, dims: value.dims, external: false, storedBytes: 0 };
  } else {
    const floats = node.attributes.value_floats;
    if (floats?.kind === "floats")
      tensor = {
        name,
        dataType: "float32",
        dims: [floats.value.length],
        external: false,
        storedBytes: 4 * floats.value.length,
      };
  }
  if (tensor === undefined) return undefined;
  const floating = elementTypeByName(tensor.dataType)?.floatingPoint ?? false;
  const isWeight = quantizedWeights.has(name) || (floating && elementCount(tensor.dims) > 1);
  return isWeight ? { ...tensor, name } : undefined;
}

/**
 * Counts parameters the way the model zoo states them (torchvision's and Hugging Face's counts): trainable
 * tensors. BatchNormalization's running mean and variance are state, not parameters; so are quantization scales.
 */
export function countParameters(graph: OnnxModelGraph): ParameterCount {
  const scopes = allScopes(graph);
  const runningStats = new Set<string>();
  const quantizedWeights = new Set<string>();
  const quantization = new Set<string>();
  for (const scope of scopes) {
    for (const node of scope.nodes) {
      if (node.domain !== "" && node.domain !== "com.microsoft") continue;
      const mark = (positions: number[] | undefined, into: Set<string>) => {
        for (const index of positions ?? []) {
          const name = node.inputs[index];
          if (name) into.add(name);
        }
      };
      if (node.opType === "BatchNormalization") mark([3, 4], runningStats);
      mark(QUANTIZED_WEIGHT_INPUTS[node.opType], quantizedWeights);
      mark(QUANTIZATION_INPUTS[node.opType], quantization);
    }
  }
  // Names are unique per scope in a valid model; a body may reuse an outer name (shadowing), so key by scope.
  const seen = new Set<string>();
  const result: ParameterCount = {
    parameters: 0,
    weightBytes: 0,
    initializers: 0,
    batchNormStatistics: 0,
    quantizationParameters: 0,
    constantNodes: 0,
    inSubgraphs: 0,
    externalInitializers: [],
  };
  for (const scope of scopes) {
    const tensors: Array<{ tensor: InitializerInfo; constant: boolean }> = scope.initializers.map((tensor) => ({
      tensor,
      constant: false,
    }));
    for (const node of scope.nodes) {
      const tensor = constantTensor(node, quantizedWeights);
      if (tensor) tensors.push({ tensor, constant: true });
    }
    for (const { tensor, constant } of tensors) {
      // ONNX forbids duplicate initializer names; a malformed file that has them is still counted once.
      const key = `${scope.path}\u0000${tensor.name}`;
      if (seen.has(key)) continue;
      seen.add(key);
      result.initializers += 1;
      if (constant) result.constantNodes += 1;
      if (scope.path !== "") result.inSubgraphs += 1;
      const elements = elementCount(tensor.dims);
      result.weightBytes += packedBytes(tensor.dataType, elements) ?? tensor.storedBytes;
      if (tensor.external) result.externalInitializers.push(tensor.name);
      if (quantization.has(tensor.name) && !quantizedWeights.has(tensor.name)) {
        result.quantizationParameters += elements;
        continue;
      }
      const floating = elementTypeByName(tensor.dataType)?.floatingPoint ?? false;
      if (!floating && !quantizedWeights.has(tensor.name)) continue;
      if (runningStats.has(tensor.name)) result.batchNormStatistics += elements;
      else result.parameters += elements;
    }
  }
  return result;
}
