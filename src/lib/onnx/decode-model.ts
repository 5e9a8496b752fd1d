import { elementTypeName, packedBytes } from "@/core/model-analysis/dtypes";
import type {
  AttributeValue,
  Dim,
  GraphNode,
  InitializerInfo,
  OnnxModelGraph,
  SubGraph,
  TensorInfo,
} from "@/core/model-analysis/graph";
import { AttributeType, onnx, type OnnxTypes } from "./proto";

/** A file that cannot be analysed at all. */
export class OnnxFileError extends Error {
  readonly code: "NOT_ONNX";
  readonly parameter: string;

  constructor(parameter: string, message: string) {
    super(`${parameter}: ${message}`);
    this.name = "OnnxFileError";
    this.code = "NOT_ONNX";
    this.parameter = parameter;
  }
}

type IntLike = number | { toNumber(): number } | null | undefined;

/** protobufjs hands int64 fields back as Long objects; every size we read fits a double exactly. */
function num(value: IntLike): number {
  if (value === null || value === undefined) return 0;
  return typeof value === "number" ? value : value.toNumber();
}

const has = (obj: object, key: string): boolean => Object.prototype.hasOwnProperty.call(obj, key);

function decodeDim(dim: OnnxTypes.TensorShapeProto.IDimension): Dim {
  if (has(dim, "dimValue")) return num(dim.dimValue);
  if (has(dim, "dimParam") && dim.dimParam) return dim.dimParam;
  return null;
}

function decodeValueInfo(info: OnnxTypes.IValueInfoProto): TensorInfo {
  const type = info.type;
  const tensor = type?.tensorType;
  if (!tensor) {
    const kind = type?.sequenceType
      ? "sequence"
      : type?.mapType
        ? "map"
        : type?.optionalType
          ? "optional"
          : type?.sparseTensorType
            ? "sparse_tensor"
            : "undefined";
    return { name: info.name ?? "", dataType: kind, shape: null };
  }
  return {
    name: info.name ?? "",
    dataType: elementTypeName(tensor.elemType ?? 0),
    shape: tensor.shape ? (tensor.shape.dim ?? []).map(decodeDim) : null,
  };
}

function tensorElements(dims: readonly number[]): number {
  return dims.reduce((a, b) => a * b, 1);
}

function storedBytes(t: OnnxTypes.ITensorProto, dataType: string, dims: number[]): number {
  if (t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL) {
    const length = t.externalData?.find((e) => e.key === "length")?.value;
    return length !== undefined && length !== null
      ? Number(length)
      : (packedBytes(dataType, tensorElements(dims)) ?? 0);
  }
  if (t.rawData && t.rawData.length > 0) return t.rawData.length;
  if (t.stringData && t.stringData.length > 0) return t.stringData.reduce((sum, s) => sum + s.length, 0);
  return packedBytes(dataType, tensorElements(dims)) ?? 0;
}

function decodeAttribute(a: OnnxTypes.IAttributeProto): AttributeValue {
  switch (a.type) {
    case AttributeType.INT:
      return { kind: "int", value: num(a.i) };
    case AttributeType.INTS:
      return { kind: "ints", value: (a.ints ?? []).map(num) };
    case AttributeType.FLOAT:
      return { kind: "float", value: a.f ?? 0 };
    case AttributeType.FLOATS:
      return { kind: "floats", value: [...(a.floats ?? [])] };
    case AttributeType.STRING:
      return { kind: "string", value: new TextDecoder().decode(a.s ?? new Uint8Array()) };
    case AttributeType.STRINGS:
      return { kind: "strings", value: (a.strings ?? []).map((s) => new TextDecoder().decode(s)) };
    case AttributeType.TENSOR: {
      const initializer = decodeTensor(a.t ?? {});
      return { kind: "tensor", dataType: initializer.dataType, dims: initializer.dims, initializer };
    }
    case AttributeType.GRAPH:
      return { kind: "graph", graphs: a.g ? [decodeSubGraph(a.g)] : [] };
    case AttributeType.GRAPHS:
      return { kind: "graph", graphs: (a.graphs ?? []).map(decodeSubGraph) };
    default:
      return { kind: "other" };
  }
}

/** A one-element int64 or int32 tensor's value (trip counts, sizes); undefined for anything else. */
function integerScalar(t: OnnxTypes.ITensorProto, dataType: string, dims: number[]): number | undefined {
  if (tensorElements(dims) !== 1 || (dataType !== "int64" && dataType !== "int32")) return undefined;
  if (dataType === "int64" && t.int64Data && t.int64Data.length > 0) return num(t.int64Data[0] as IntLike);
  if (dataType === "int32" && t.int32Data && t.int32Data.length > 0) return t.int32Data[0];
  const raw = t.rawData;
  if (!raw || raw.length < (dataType === "int64" ? 8 : 4)) return undefined;
  const view = new DataView(raw.buffer, raw.byteOffset, raw.length);
  return dataType === "int64" ? Number(view.getBigInt64(0, true)) : view.getInt32(0, true);
}

function decodeTensor(t: OnnxTypes.ITensorProto): InitializerInfo {
  const dataType = elementTypeName(t.dataType ?? 0);
  const dims = (t.dims ?? []).map(num);
  const scalar = integerScalar(t, dataType, dims);
  return {
    name: t.name ?? "",
    dataType,
    dims,
    external: t.dataLocation === onnx.TensorProto.DataLocation.EXTERNAL,
    storedBytes: storedBytes(t, dataType, dims),
    ...(scalar !== undefined ? { scalar } : {}),
  };
}

function decodeSubGraph(g: OnnxTypes.IGraphProto): SubGraph {
  return {
    name: g.name ?? "",
    inputs: (g.input ?? []).map(decodeValueInfo),
    outputs: (g.output ?? []).map(decodeValueInfo),
    initializers: (g.initializer ?? []).map(decodeTensor),
    nodes: (g.node ?? []).map(decodeNode),
    valueInfo: (g.valueInfo ?? []).map(decodeValueInfo),
  };
}

function decodeNode(n: OnnxTypes.INodeProto): GraphNode {
  const attributes: Record<string, AttributeValue> = {};
  for (const a of n.attribute ?? []) attributes[a.name ?? ""] = decodeAttribute(a);
  return {
    name: n.name ?? "",
    opType: n.opType ?? "",
    domain: n.domain === "ai.onnx" ? "" : (n.domain ?? ""),
    inputs: [...(n.input ?? [])],
    outputs: [...(n.output ?? [])],
    attributes,
  };
}

/**
 * Reads a model's structure: no weight values are copied (protobufjs keeps raw_data as views of `bytes`).
 * Throws OnnxFileError when the bytes are not an ONNX model.
 */
export function decodeOnnxModel(bytes: Uint8Array): OnnxModelGraph {
  if (bytes.length === 0) throw new OnnxFileError("bytes", "the file is empty");
  let model: OnnxTypes.ModelProto;
  try {
    model = onnx.ModelProto.decode(bytes);
  } catch (error) {
    throw new OnnxFileError("bytes", `not an ONNX model (protobuf decoding failed: ${(error as Error).message})`);
  }
  const graph = model.graph;
  const irVersion = num(model.irVersion);
  if (!graph || irVersion <= 0 || (model.opsetImport ?? []).length === 0) {
    throw new OnnxFileError("bytes", "not an ONNX model (no graph, IR version or opset import)");
  }
  const initializers: InitializerInfo[] = (graph.initializer ?? []).map(decodeTensor);
  const initializerNames = new Set(initializers.map((i) => i.name));
  const metadata: Record<string, string> = {};
  for (const p of model.metadataProps ?? []) metadata[p.key ?? ""] = p.value ?? "";
  return {
    irVersion,
    producerName: model.producerName ?? "",
    producerVersion: model.producerVersion ?? "",
    opsets: (model.opsetImport ?? []).map((o) => ({
      domain: o.domain === "ai.onnx" ? "" : (o.domain ?? ""),
      version: num(o.version),
    })),
    metadata,
    inputs: (graph.input ?? []).filter((i) => !initializerNames.has(i.name ?? "")).map(decodeValueInfo),
    outputs: (graph.output ?? []).map(decodeValueInfo),
    initializers,
    nodes: (graph.node ?? []).map(decodeNode),
  };
}
