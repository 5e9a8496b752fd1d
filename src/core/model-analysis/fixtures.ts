/**
 * Test data: hand-written graphs for the analysis tests (not used by the product). The tiny CNN here has the
 * architecture of the model zoo's tiny-cnn, written independently of the zoo's builder.
 */
import type { AttributeValue, GraphNode, InitializerInfo, OnnxModelGraph } from "./graph";

export function node(
  opType: string,
  inputs: string[],
  outputs: string[],
  attributes: Record<string, AttributeValue> = {},
  domain = "",
): GraphNode {
  return { name: outputs[0] ?? opType, opType, domain, inputs, outputs, attributes };
}

export function floatInit(name: string, dims: number[]): InitializerInfo {
  return { name, dataType: "float32", dims, external: false, storedBytes: 4 * dims.reduce((a, b) => a * b, 1) };
}

export const ints = (value: number[]): AttributeValue => ({ kind: "ints", value });
export const int = (value: number): AttributeValue => ({ kind: "int", value });

export function emptyGraph(overrides: Partial<OnnxModelGraph> = {}): OnnxModelGraph {
  return {
    irVersion: 8,
    producerName: "hand",
    producerVersion: "1",
    opsets: [{ domain: "", version: 17 }],
    metadata: {},
    inputs: [],
    outputs: [],
    initializers: [],
    nodes: [],
    ...overrides,
  };
}

/**
 * input [batch,3,32,32] → Conv 3→8 3×3 pad 1 (no bias) → BatchNormalization → Relu → MaxPool 2×2 stride 2
 * → Conv 8→16 3×3 pad 1 (+bias) → Relu → GlobalAveragePool → Flatten → Gemm 16→10 (transB) → logits [batch,10].
 */
export function tinyCnnGraph(): OnnxModelGraph {
  return emptyGraph({
    inputs: [{ name: "input", dataType: "float32", shape: ["batch", 3, 32, 32] }],
    outputs: [{ name: "logits", dataType: "float32", shape: ["batch", 10] }],
    initializers: [
      floatInit("conv1.weight", [8, 3, 3, 3]),
      floatInit("bn1.weight", [8]),
      floatInit("bn1.bias", [8]),
      floatInit("bn1.running_mean", [8]),
      floatInit("bn1.running_var", [8]),
      floatInit("conv2.weight", [16, 8, 3, 3]),
      floatInit("conv2.bias", [16]),
      floatInit("fc.weight", [10, 16]),
      floatInit("fc.bias", [10]),
    ],
    nodes: [
      node("Conv", ["input", "conv1.weight"], ["c1"], { kernel_shape: ints([3, 3]), pads: ints([1, 1, 1, 1]) }),
      node("BatchNormalization", ["c1", "bn1.weight", "bn1.bias", "bn1.running_mean", "bn1.running_var"], ["b1"]),
      node("Relu", ["b1"], ["r1"]),
      node("MaxPool", ["r1"], ["p1"], { kernel_shape: ints([2, 2]), strides: ints([2, 2]) }),
      node("Conv", ["p1", "conv2.weight", "conv2.bias"], ["c2"], {
        kernel_shape: ints([3, 3]),
        pads: ints([1, 1, 1, 1]),
      }),
      node("Relu", ["c2"], ["r2"]),
      node("GlobalAveragePool", ["r2"], ["g"]),
      node("Flatten", ["g"], ["f"], { axis: int(1) }),
      node("Gemm", ["f", "fc.weight", "fc.bias"], ["logits"], { transB: int(1) }),
    ],
  });
}

/** The tiny CNN's tensor shapes at a batch size, worked by hand from the layer list above. */
export function tinyCnnShapes(batch: number): Map<string, number[]> {
  return new Map([
    ["input", [batch, 3, 32, 32]],
    ["c1", [batch, 8, 32, 32]],
    ["b1", [batch, 8, 32, 32]],
    ["r1", [batch, 8, 32, 32]],
    ["p1", [batch, 8, 16, 16]],
    ["c2", [batch, 16, 16, 16]],
    ["r2", [batch, 16, 16, 16]],
    ["g", [batch, 16, 1, 1]],
    ["f", [batch, 16]],
    ["logits", [batch, 10]],
  ]);
}
