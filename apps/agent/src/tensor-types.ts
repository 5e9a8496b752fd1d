// Open Inference Protocol datatypes (the shared table) ↔ ONNX Runtime tensor types ↔ typed arrays.
import { OIP_DATATYPES, oipDatatypeOfOnnx, type OipDatatype, type OnnxElementType } from "@packrat/contracts/oip-datatypes";

export { isOipDatatype, type OipDatatype } from "@packrat/contracts/oip-datatypes";
export type OrtType = OnnxElementType;
export type TypedArray = Uint8Array | Uint16Array | Uint32Array | BigUint64Array | Int8Array | Int16Array | Int32Array | BigInt64Array | Float32Array | Float64Array;

interface TypeInfo { ort: OrtType; bytes: number; array: new (buffer: ArrayBuffer, offset?: number, length?: number) => TypedArray; bigint: boolean }

/** The typed array that holds each datatype's elements (FP16 as raw 16-bit words). */
const ARRAYS: Record<OipDatatype, TypeInfo["array"]> = {
  BOOL: Uint8Array, UINT8: Uint8Array, UINT16: Uint16Array, UINT32: Uint32Array, UINT64: BigUint64Array,
  INT8: Int8Array, INT16: Int16Array, INT32: Int32Array, INT64: BigInt64Array, FP16: Uint16Array, FP32: Float32Array, FP64: Float64Array,
};

export const DATATYPES = Object.fromEntries(
  (Object.keys(OIP_DATATYPES) as OipDatatype[]).map((name) => {
    const { onnx, bytes } = OIP_DATATYPES[name];
    return [name, { ort: onnx, bytes, array: ARRAYS[name], bigint: name === "UINT64" || name === "INT64" }];
  }),
) as Record<OipDatatype, TypeInfo>;

export function oipDatatypeOf(ortType: string): OipDatatype | undefined {
  return oipDatatypeOfOnnx(ortType);
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
