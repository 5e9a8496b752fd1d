// Open Inference Protocol datatypes ↔ ONNX Runtime tensor types ↔ typed arrays.
export type OipDatatype = "BOOL" | "UINT8" | "UINT16" | "UINT32" | "UINT64" | "INT8" | "INT16" | "INT32" | "INT64" | "FP16" | "FP32" | "FP64";
export type OrtType = "bool" | "uint8" | "uint16" | "uint32" | "uint64" | "int8" | "int16" | "int32" | "int64" | "float16" | "float32" | "float64";
export type TypedArray = Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Float32Array | Float64Array;

interface TypeInfo { ort: OrtType; bytes: number; array: new (buffer: ArrayBuffer, offset?: number, length?: number) => TypedArray; bigint: boolean }

export const DATATYPES: Record<OipDatatype, TypeInfo> = {
  BOOL: { ort: "bool", bytes: 1, array: Uint8Array, bigint: false },
  UINT8: { ort: "uint8", bytes: 1, array: Uint8Array, bigint: false },
  UINT16: { ort: "uint16", bytes: 2, array: Uint16Array, bigint: false },
  UINT32: { ort: "uint32", bytes: 4, array: Uint32Array, bigint: false },
  UINT64: { ort: "uint64", bytes: 8, array: BigUint64Array, bigint: true },
  INT8: { ort: "int8", bytes: 1, array: Int8Array, bigint: false },
  INT16: { ort: "int16", bytes: 2, array: Int16Array, bigint: false },
  INT32: { ort: "int32", bytes: 4, array: Int32Array, bigint: false },
  INT64: { ort: "int64", bytes: 8, array: BigInt64Array, bigint: true },
  FP16: { ort: "float16", bytes: 2, array: Uint16Array, bigint: false },
  FP32: { ort: "float32", bytes: 4, array: Float32Array, bigint: false },
  FP64: { ort: "float64", bytes: 8, array: Float64Array, bigint: false },
};

const byOrt = new Map<string, OipDatatype>(Object.entries(DATATYPES).map(([k, v]) => [v.ort, k as OipDatatype]));

export function oipDatatypeOf(ortType: string): OipDatatype | undefined {
  return byOrt.get(ortType);
}

export function isOipDatatype(value: string): value is OipDatatype {
  // Own keys only: "constructor" or "toString" are in every object literal.
  return Object.hasOwn(DATATYPES, value);
}

/** A tensor as it travels between HTTP, dispatcher and instances: a dense row-major buffer. */
export interface WireTensor {
  name: string;
  datatype: OipDatatype;
  shape: number[];
  /** Exactly elementCount(shape) × bytes of the datatype, starting at offset 0. */
  buffer: ArrayBuffer;
}

export function elementCount(shape: readonly number[]): number {
  return shape.reduce((a, b) => a * b, 1);
}

export function typedView(tensor: WireTensor): TypedArray {
  const info = DATATYPES[tensor.datatype];
  return new info.array(tensor.buffer, 0, tensor.buffer.byteLength / info.bytes);
}
