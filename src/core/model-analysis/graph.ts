/**
 * A decoded ONNX model as plain data: what the analysis needs and nothing else (no weights, no protobuf classes).
 * The decoder in src/lib/onnx builds it from a file; tests build it by hand.
 */

/** One dimension: a fixed size, a symbolic name (dim_param, e.g. "batch"), or null when the file says nothing. */
export type Dim = number | string | null;

/** A graph input or output. `shape` is null when the file gives no rank. */
export interface TensorInfo {
  name: string;
  /** Element type name from dtypes.ts, e.g. "float32", "int64"; "undefined" when the file gives none. */
  dataType: string;
  shape: Dim[] | null;
}

export interface InitializerInfo {
  name: string;
  dataType: string;
  dims: number[];
  /** True when the values live in a separate file (data_location = EXTERNAL). */
  external: boolean;
  /** Bytes stored in the file for this tensor; used only for types without a fixed element size (strings). */
  storedBytes: number;
  /** The value of a one-element integer tensor (a Loop's trip count), when the file holds it inline. */
  scalar?: number;
}

export type AttributeValue =
  | { kind: "int"; value: number }
  | { kind: "ints"; value: number[] }
  | { kind: "float"; value: number }
  | { kind: "floats"; value: number[] }
  | { kind: "string"; value: string }
  | { kind: "strings"; value: string[] }
  /** A tensor value (a Constant's `value`, ConstantOfShape's fill); `initializer` sizes it like a weight. */
  | { kind: "tensor"; dataType: string; dims: number[]; initializer?: InitializerInfo }
  /** A body (If's branches, Loop's and Scan's body): decoded so its weights and FLOPs count. */
  | { kind: "graph"; graphs: SubGraph[] }
  | { kind: "other" };

export interface GraphNode {
  name: string;
  opType: string;
  /** "" is the default ONNX domain. */
  domain: string;
  inputs: string[];
  outputs: string[];
  attributes: Record<string, AttributeValue>;
}

/** A graph nested in a node's attribute. Names of the enclosing graphs are visible inside it. */
export interface SubGraph {
  name: string;
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  initializers: InitializerInfo[];
  nodes: GraphNode[];
  /** Shapes the file states for inner tensors (value_info), used where no run measured them. */
  valueInfo: TensorInfo[];
}

export interface OpsetImport {
  domain: string;
  version: number;
}

export interface OnnxModelGraph {
  irVersion: number;
  producerName: string;
  producerVersion: string;
  opsets: OpsetImport[];
  /** metadata_props as a map. */
  metadata: Record<string, string>;
  /** Real inputs only: names that also have an initializer (IR < 4 style) are left out. */
  inputs: TensorInfo[];
  outputs: TensorInfo[];
  initializers: InitializerInfo[];
  /** Top-level nodes; nodes inside If/Loop/Scan bodies are in their `graph` attributes. */
  nodes: GraphNode[];
}
