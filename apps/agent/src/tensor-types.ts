// The agent's view of the shared Open Inference Protocol datatypes (src/contracts/oip-datatypes.ts): each with its
// ONNX Runtime tensor type and typed array, and the dense tensor that travels between HTTP, dispatcher and instances.
import {
  isBigIntDatatype,
  OIP_DATATYPES,
  OIP_TYPED_ARRAYS,
  oipDatatypeOfOnnx,
  type OipDatatype,
  type OnnxElementType,
  type TypedArray,
  type TypedArrayConstructor,
} from "@packrat/contracts/oip-datatypes";

export { isOipDatatype, type OipDatatype, type TypedArray } from "@packrat/contracts/oip-datatypes";
export type OrtType = OnnxElementType;

interface TypeInfo {
  ort: OrtType;
  bytes: number;
  array: TypedArrayConstructor;
  bigint: boolean;
}

export const DATATYPES = Object.fromEntries(
  (Object.keys(OIP_DATATYPES) as OipDatatype[]).map((name) => {
    const { onnx, bytes } = OIP_DATATYPES[name];
    return [name, { ort: onnx, bytes, array: OIP_TYPED_ARRAYS[name], bigint: isBigIntDatatype(name) }];
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
