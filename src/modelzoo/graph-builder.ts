import { AttributeType, DataType, onnx, type OnnxTypes } from "@/lib/onnx/proto";
import { ModelZooError } from "./errors";
import { normalTensor } from "./weight-stream";

/**
 * A small helper over onnx-proto for writing graphs by hand: names outputs, sets every attribute's type (ORT
 * rejects untyped ones), keeps shape constants in Constant nodes (so initializers hold only weights) and draws
 * every weight from the seeded generator under the weight's own name.
 */

export const OPSET = 17;
export const IR_VERSION = 8;
/** Weights are N(0, WEIGHT_STD²) (the GPT-2/BERT initialiser; used for every family so the bytes are comparable). */
export const WEIGHT_STD = 0.02;

export type Dim = number | string;

/** What every zoo builder takes. */
export interface BuildOptions {
  seed: number;
  producerVersion: string;
  /** Written into metadata_props (labels such as synthetic weights travel with the file). */
  metadata?: Record<string, string>;
  /** The graph's name. */
  name?: string;
}
export type ElemType = "float32" | "int64";

export type Attr =
  | { type: "int"; value: number }
  | { type: "ints"; value: number[] }
  | { type: "float"; value: number }
  | { type: "floats"; value: number[] }
  | { type: "string"; value: string }
  | { type: "tensor"; value: OnnxTypes.ITensorProto };

export const attr = {
  int: (value: number): Attr => ({ type: "int", value }),
  ints: (value: number[]): Attr => ({ type: "ints", value }),
  float: (value: number): Attr => ({ type: "float", value }),
  floats: (value: number[]): Attr => ({ type: "floats", value }),
  string: (value: string): Attr => ({ type: "string", value }),
  /** A one-element float32 tensor, e.g. ConstantOfShape's fill value. */
  floatTensor: (value: number): Attr => ({
    type: "tensor",
    value: { dims: [1], dataType: DataType.FLOAT, floatData: [value] },
  }),
};

const ELEM: Record<ElemType, number> = { float32: DataType.FLOAT, int64: DataType.INT64 };

function valueInfo(name: string, elem: ElemType, shape: readonly Dim[]): OnnxTypes.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType: ELEM[elem],
        shape: { dim: shape.map((d) => (typeof d === "number" ? { dimValue: d } : { dimParam: d })) },
      },
    },
  };
}

function encodeAttr(name: string, a: Attr): OnnxTypes.IAttributeProto {
  switch (a.type) {
    case "int":
      return { name, type: AttributeType.INT, i: a.value };
    case "ints":
      return { name, type: AttributeType.INTS, ints: a.value };
    case "float":
      return { name, type: AttributeType.FLOAT, f: a.value };
    case "floats":
      return { name, type: AttributeType.FLOATS, floats: a.value };
    case "string":
      return { name, type: AttributeType.STRING, s: new TextEncoder().encode(a.value) };
    case "tensor":
      return { name, type: AttributeType.TENSOR, t: a.value };
  }
}

function elementCount(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

/** Little-endian bytes of a float32 array without copying (ONNX raw_data is little-endian). */
function rawBytes(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

export class GraphBuilder {
  private readonly nodes: OnnxTypes.INodeProto[] = [];
  private readonly initializers: OnnxTypes.ITensorProto[] = [];
  private readonly inputs: OnnxTypes.IValueInfoProto[] = [];
  private readonly outputs: OnnxTypes.IValueInfoProto[] = [];
  private readonly names = new Set<string>();
  private readonly constants = new Map<string, string>();
  private counter = 0;

  constructor(
    readonly graphName: string,
    readonly seed: number,
  ) {
    if (!LITTLE_ENDIAN)
      throw new ModelZooError(
        "BIG_ENDIAN",
        "platform",
        "raw_data is written from native float32 arrays and needs a little-endian host",
      );
  }

  private claim(name: string): string {
    if (this.names.has(name)) throw new ModelZooError("DUPLICATE_NAME", "name", `tensor "${name}" is defined twice`);
    this.names.add(name);
    return name;
  }

  /** A fresh tensor name under `prefix`. */
  fresh(prefix: string): string {
    let name = prefix;
    while (this.names.has(name)) name = `${prefix}_${++this.counter}`;
    return name;
  }

  input(name: string, elem: ElemType, shape: readonly Dim[]): string {
    this.inputs.push(valueInfo(this.claim(name), elem, shape));
    return name;
  }

  /** Declares an existing tensor a graph output (renaming it through Identity when asked for another name). */
  output(tensor: string, elem: ElemType, shape: readonly Dim[], name = tensor): string {
    const source = name === tensor ? tensor : this.op("Identity", [tensor], {}, name);
    this.outputs.push(valueInfo(source, elem, shape));
    return source;
  }

  /** A float32 initializer with the given values. */
  tensor(name: string, dims: readonly number[], values: Float32Array): string {
    if (values.length !== elementCount(dims)) {
      throw new ModelZooError(
        "BAD_TENSOR",
        "values",
        `"${name}" has ${values.length} values for dims [${dims.join(", ")}]`,
      );
    }
    this.initializers.push({
      name: this.claim(name),
      dims: [...dims],
      dataType: DataType.FLOAT,
      rawData: rawBytes(values),
    });
    return name;
  }

  /** A weight drawn from N(mean, std²) on the stream named after it. */
  normal(name: string, dims: readonly number[], std = WEIGHT_STD, mean = 0): string {
    return this.tensor(name, dims, normalTensor(this.seed, name, elementCount(dims), std, mean));
  }

  /** BatchNormalization's running variance: 1 + |noise|, positive as a variance must be. */
  variance(name: string, channels: number): string {
    const v = normalTensor(this.seed, name, channels, WEIGHT_STD);
    for (let i = 0; i < v.length; i++) v[i] = 1 + Math.abs(v[i] ?? 0);
    return this.tensor(name, [channels], v);
  }

  /** A node; returns its output names (fresh ones under its name unless given). */
  node(
    opType: string,
    inputs: readonly string[],
    attrs: Record<string, Attr> = {},
    outputs: number | readonly string[] = 1,
    name?: string,
  ): string[] {
    const base = name ?? this.fresh(opType.toLowerCase());
    const outs =
      typeof outputs === "number"
        ? Array.from({ length: outputs }, (_, i) => this.claim(this.fresh(outputs === 1 ? base : `${base}.${i}`)))
        : outputs.map((o) => this.claim(o));
    this.nodes.push({
      name: base,
      opType,
      input: [...inputs],
      output: outs,
      attribute: Object.entries(attrs).map(([k, v]) => encodeAttr(k, v)),
    });
    return outs;
  }

  /** A single-output node; returns its output name. */
  op(opType: string, inputs: readonly string[], attrs: Record<string, Attr> = {}, name?: string): string {
    const [out] = this.node(opType, inputs, attrs, 1, name);
    return out as string;
  }

  private constant(key: string, tensor: OnnxTypes.ITensorProto): string {
    const cached = this.constants.get(key);
    if (cached !== undefined) return cached;
    const name = this.fresh(`const_${this.constants.size}`);
    this.claim(name);
    this.nodes.push({
      name,
      opType: "Constant",
      input: [],
      output: [name],
      attribute: [{ name: "value", type: AttributeType.TENSOR, t: tensor }],
    });
    this.constants.set(key, name);
    return name;
  }

  /** An int64 Constant node (shapes, axes, indices): not an initializer, so never counted as a weight. */
  int64(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.constant(`i64:${dims.join("x")}:${values.join(",")}`, {
      dims: [...dims],
      dataType: DataType.INT64,
      int64Data: [...values],
    });
  }

  /** A float32 Constant node (a scalar when dims is []). */
  float(values: readonly number[], dims: readonly number[] = [values.length]): string {
    return this.constant(`f32:${dims.join("x")}:${values.join(",")}`, {
      dims: [...dims],
      dataType: DataType.FLOAT,
      floatData: [...values],
    });
  }

  /** Bytes of the model. Call once: the weights are referenced, not copied, until encoding. */
  toBytes(options: { producerVersion: string; metadata?: Record<string, string>; docString?: string }): Uint8Array {
    const model: OnnxTypes.IModelProto = {
      irVersion: IR_VERSION,
      producerName: "packrat-modelzoo",
      producerVersion: options.producerVersion,
      docString: options.docString ?? "",
      opsetImport: [{ domain: "", version: OPSET }],
      metadataProps: Object.entries(options.metadata ?? {}).map(([key, value]) => ({ key, value })),
      graph: {
        name: this.graphName,
        node: this.nodes,
        initializer: this.initializers,
        input: this.inputs,
        output: this.outputs,
      },
    };
    return onnx.ModelProto.encode(model).finish();
  }
}
