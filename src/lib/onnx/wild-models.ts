// Test data: ONNX files shaped like third-party exports (not the zoo's), built here so each test owns its model.
// Each reproduces one thing real exporters do: weights in Constant nodes, dynamic image sizes, recurrent state with
// the batch on axis 1 next to a scalar input, an If, quantized operators, weights in external data files.
import { AttributeType, DataType, onnx, type OnnxTypes } from "./proto";

type Dim = number | string;

const dims = (shape: readonly Dim[]) => ({
  dim: shape.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })),
});
const value = (name: string, shape: readonly Dim[], elemType: number = DataType.FLOAT): OnnxTypes.IValueInfoProto => ({
  name,
  type: { tensorType: { elemType, shape: dims(shape) } },
});

/** `count` floats in [-0.5, 0.5) from a seeded generator: weights that differ per model but not per run. */
export function seededFloats(count: number, seed: number): number[] {
  let x = seed >>> 0 || 1;
  return Array.from({ length: count }, () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32 - 0.5;
  });
}

const floatTensor = (name: string, shape: number[], seed: number): OnnxTypes.ITensorProto => ({
  name,
  dims: shape,
  dataType: DataType.FLOAT,
  floatData: seededFloats(
    shape.reduce((a, b) => a * b, 1),
    seed,
  ),
});

const constantNode = (output: string, tensor: OnnxTypes.ITensorProto): OnnxTypes.INodeProto => ({
  opType: "Constant",
  input: [],
  output: [output],
  name: output,
  attribute: [{ name: "value", type: AttributeType.TENSOR, t: { ...tensor, name: undefined } }],
});

const intAttr = (name: string, i: number) => ({ name, type: AttributeType.INT, i });
const intsAttr = (name: string, ints: number[]) => ({ name, type: AttributeType.INTS, ints });

function model(graph: OnnxTypes.IGraphProto, producerName: string, opset = 17): Uint8Array {
  return onnx.ModelProto.encode({
    irVersion: 8,
    producerName,
    opsetImport: [{ domain: "", version: opset }],
    graph,
  }).finish();
}

/**
 * Paddle2ONNX style: every weight in a Constant node, no initializers. x [batch, 8] → MatMul W [8, 16] → Add b [16]
 * → Relu → y [batch, 16]. 8·16 + 16 = 144 parameters; 2 × 16 × 8 = 256 FLOPs a sample.
 */
export function constantWeightsModel(): Uint8Array {
  return model(
    {
      name: "constant-weights",
      input: [value("x", ["p2o.DynamicDimension.0", 8])],
      output: [value("y", ["p2o.DynamicDimension.0", 16])],
      node: [
        constantNode("W", floatTensor("W", [8, 16], 11)),
        constantNode("b", floatTensor("b", [16], 12)),
        { opType: "MatMul", input: ["x", "W"], output: ["xw"], name: "matmul" },
        { opType: "Add", input: ["xw", "b"], output: ["pre"], name: "add" },
        { opType: "Relu", input: ["pre"], output: ["y"], name: "relu" },
      ],
    },
    "paddle2onnx-like",
  );
}

/**
 * An image model with free height and width: x [batch, 3, height, width] → Conv 3→4 3×3 pad 1 (+bias) → Relu →
 * GlobalAveragePool → Flatten → y [batch, 4]. 4·3·3·3 + 4 = 112 parameters; at 16×16, 2 × 4·16·16 × 27 + 4·16·16
 * (the pool) = 55,296 + 1,024 = 56,320 FLOPs a sample.
 */
export function dynamicImageModel(): Uint8Array {
  return model(
    {
      name: "dynamic-image",
      input: [value("x", ["N", 3, "p2o.DynamicDimension.1", "p2o.DynamicDimension.2"])],
      output: [value("y", ["N", 4])],
      initializer: [floatTensor("conv.w", [4, 3, 3, 3], 21), floatTensor("conv.b", [4], 22)],
      node: [
        {
          opType: "Conv",
          input: ["x", "conv.w", "conv.b"],
          output: ["c"],
          name: "conv",
          attribute: [intsAttr("kernel_shape", [3, 3]), intsAttr("pads", [1, 1, 1, 1])],
        },
        { opType: "Relu", input: ["c"], output: ["r"], name: "relu" },
        { opType: "GlobalAveragePool", input: ["r"], output: ["g"], name: "pool" },
        { opType: "Flatten", input: ["g"], output: ["y"], name: "flatten", attribute: [intAttr("axis", 1)] },
      ],
    },
    "dynamic-image",
  );
}

/**
 * A recurrent step with state shaped [layers, batch, hidden] (batch on axis 1) and a scalar input that must not be
 * concatenated: x [batch, 8], h0 [2, batch, 16], gain [] → h1 = tanh(gain · (x·Wx + h0·Wh)) (Wx broadcast over
 * layers) → y = h1[last layer] [batch, 16], hN = h1 [2, batch, 16]. 8·16 + 16·16 = 384 parameters.
 * Without `scalarInput` the gain is a weight (0.75) and the model batches along each tensor's own axis.
 */
export function recurrentModel(options: { scalarInput?: boolean } = {}): Uint8Array {
  const scalarInput = options.scalarInput ?? true;
  return model(
    {
      name: "recurrent",
      input: [value("x", ["batch", 8]), value("h0", [2, "batch", 16]), ...(scalarInput ? [value("gain", [])] : [])],
      output: [value("y", ["batch", 16]), value("hN", [2, "batch", 16])],
      initializer: [
        floatTensor("Wx", [8, 16], 31),
        floatTensor("Wh", [16, 16], 32),
        { name: "last", dims: [], dataType: DataType.INT64, int64Data: [1] },
        ...(scalarInput ? [] : [{ name: "gain", dims: [], dataType: DataType.FLOAT, floatData: [0.75] }]),
      ],
      node: [
        { opType: "MatMul", input: ["x", "Wx"], output: ["xw"], name: "input_proj" },
        { opType: "MatMul", input: ["h0", "Wh"], output: ["hw"], name: "state_proj" },
        { opType: "Add", input: ["hw", "xw"], output: ["sum"], name: "add" },
        { opType: "Mul", input: ["sum", "gain"], output: ["scaled"], name: "gain" },
        { opType: "Tanh", input: ["scaled"], output: ["hN"], name: "tanh" },
        { opType: "Gather", input: ["hN", "last"], output: ["y"], name: "last_layer", attribute: [intAttr("axis", 0)] },
      ],
    },
    "recurrent",
  );
}

/**
 * An If whose branches hold their own weights: cond = (x's feature count > 4), fixed for a given model and the same
 * for every row, so batching does not change which branch runs. then: MatMul Wt [8, 4]; else: MatMul We [8, 4] →
 * Relu. x [batch, 8] → y [batch, 4]. 32 + 32 = 64 parameters; the larger branch costs 2 × 4 × 8 = 64 FLOPs a sample.
 */
export function ifModel(): Uint8Array {
  const branch = (name: string, weight: string, seed: number, relu: boolean): OnnxTypes.IGraphProto => ({
    name,
    initializer: [floatTensor(weight, [8, 4], seed)],
    node: relu
      ? [
          { opType: "MatMul", input: ["x", weight], output: [`${name}_mm`], name: `${name}_mm` },
          { opType: "Relu", input: [`${name}_mm`], output: [`${name}_out`], name: `${name}_relu` },
        ]
      : [{ opType: "MatMul", input: ["x", weight], output: [`${name}_out`], name: `${name}_mm` }],
    output: [{ name: `${name}_out` }],
  });
  return model(
    {
      name: "if",
      input: [value("x", ["batch", 8])],
      output: [value("y", ["batch", 4])],
      initializer: [
        { name: "feature_axis", dims: [], dataType: DataType.INT64, int64Data: [1] },
        { name: "four", dims: [], dataType: DataType.INT64, int64Data: [4] },
      ],
      node: [
        { opType: "Shape", input: ["x"], output: ["shape"], name: "shape" },
        {
          opType: "Gather",
          input: ["shape", "feature_axis"],
          output: ["features"],
          name: "features",
          attribute: [intAttr("axis", 0)],
        },
        { opType: "Greater", input: ["features", "four"], output: ["cond"], name: "cond" },
        {
          opType: "If",
          input: ["cond"],
          output: ["y"],
          name: "branch",
          attribute: [
            { name: "then_branch", type: AttributeType.GRAPH, g: branch("then", "Wt", 41, false) },
            { name: "else_branch", type: AttributeType.GRAPH, g: branch("else", "We", 42, true) },
          ],
        },
      ],
    },
    "if-model",
  );
}

const scalar = (name: string, dataType: number, v: number): OnnxTypes.ITensorProto =>
  dataType === DataType.FLOAT
    ? { name, dims: [], dataType, floatData: [v] }
    : { name, dims: [], dataType, rawData: Uint8Array.of(v) };

/**
 * Quantized as onnxruntime's quantizer writes it (QDQ around QLinearMatMul): x [batch, 16] float → QuantizeLinear →
 * QLinearMatMul with uint8 weights B [16, 8] → DequantizeLinear → y [batch, 8] float. 128 parameters (the uint8
 * weights, 128 B); scales and zero points are quantization state. 2 × 8 × 16 = 256 FLOPs a sample.
 */
export function quantizedModel(): Uint8Array {
  const weights = Uint8Array.from(seededFloats(16 * 8, 51), (v) => Math.round((v + 0.5) * 255));
  return model(
    {
      name: "quantized",
      input: [value("x", ["batch", 16])],
      output: [value("y", ["batch", 8])],
      initializer: [
        scalar("x_scale", DataType.FLOAT, 1 / 64),
        scalar("x_zp", DataType.UINT8, 128),
        { name: "B", dims: [16, 8], dataType: DataType.UINT8, rawData: weights },
        scalar("b_scale", DataType.FLOAT, 1 / 256),
        scalar("b_zp", DataType.UINT8, 128),
        scalar("y_scale", DataType.FLOAT, 1 / 16),
        scalar("y_zp", DataType.UINT8, 128),
      ],
      node: [
        { opType: "QuantizeLinear", input: ["x", "x_scale", "x_zp"], output: ["xq"], name: "quantize" },
        {
          opType: "QLinearMatMul",
          input: ["xq", "x_scale", "x_zp", "B", "b_scale", "b_zp", "y_scale", "y_zp"],
          output: ["yq"],
          name: "qmatmul",
        },
        { opType: "DequantizeLinear", input: ["yq", "y_scale", "y_zp"], output: ["y"], name: "dequantize" },
      ],
    },
    "quantized",
  );
}

/** A model saved the way onnx.save_model(..., save_as_external_data=True) does: the .onnx and its data files. */
export interface ExternalDataModel {
  onnx: Uint8Array;
  /** Data files by location, relative to the .onnx. */
  files: Record<string, Uint8Array>;
}

const floatBytes = (values: number[]) => new Uint8Array(Float32Array.from(values).buffer);
const external = (
  name: string,
  shape: number[],
  location: string,
  offset: number,
  length: number,
): OnnxTypes.ITensorProto => ({
  name,
  dims: shape,
  dataType: DataType.FLOAT,
  dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
  externalData: [
    { key: "location", value: location },
    { key: "offset", value: String(offset) },
    { key: "length", value: String(length) },
  ],
});

/**
 * Weights in external data files, as exporters write models past protobuf's 2 GiB: x [batch, 8] → MatMul W [8, 16]
 * → Add b [16] → Relu → MatMul V [16, 4] → y [batch, 4]. W and b share "data/weights.bin" (b at offset 512), V has
 * "v.bin" of its own. 8·16 + 16 + 16·4 = 208 parameters; 2 × (16·8 + 4·16) = 384 FLOPs a sample (Add, Relu uncounted).
 */
export function externalWeightsModel(): ExternalDataModel {
  const w = seededFloats(8 * 16, 61);
  const b = seededFloats(16, 62);
  const v = seededFloats(16 * 4, 63);
  const shared = new Uint8Array(512 + 64);
  shared.set(floatBytes(w), 0);
  shared.set(floatBytes(b), 512);
  const bytes = model(
    {
      name: "external-data",
      input: [value("x", ["batch", 8])],
      output: [value("y", ["batch", 4])],
      initializer: [
        external("W", [8, 16], "data/weights.bin", 0, 512),
        external("b", [16], "data/weights.bin", 512, 64),
        external("V", [16, 4], "v.bin", 0, 256),
      ],
      node: [
        { opType: "MatMul", input: ["x", "W"], output: ["xw"], name: "matmul1" },
        { opType: "Add", input: ["xw", "b"], output: ["pre"], name: "add" },
        { opType: "Relu", input: ["pre"], output: ["h"], name: "relu" },
        { opType: "MatMul", input: ["h", "V"], output: ["y"], name: "matmul2" },
      ],
    },
    "external-data",
  );
  return { onnx: bytes, files: { "data/weights.bin": shared, "v.bin": floatBytes(v) } };
}
