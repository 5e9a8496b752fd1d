/**
 * ONNX element types (TensorProto.DataType), by the number a file stores, with the names ONNX Runtime's
 * JavaScript API uses where it has one and the size a value occupies in raw_data.
 */
export interface ElementType {
  code: number;
  name: string;
  /** Bits per element; 0 when elements have no fixed size (strings). */
  bits: number;
  floatingPoint: boolean;
}

const TABLE: readonly ElementType[] = [
  { code: 1, name: "float32", bits: 32, floatingPoint: true },
  { code: 2, name: "uint8", bits: 8, floatingPoint: false },
  { code: 3, name: "int8", bits: 8, floatingPoint: false },
  { code: 4, name: "uint16", bits: 16, floatingPoint: false },
  { code: 5, name: "int16", bits: 16, floatingPoint: false },
  { code: 6, name: "int32", bits: 32, floatingPoint: false },
  { code: 7, name: "int64", bits: 64, floatingPoint: false },
  { code: 8, name: "string", bits: 0, floatingPoint: false },
  { code: 9, name: "bool", bits: 8, floatingPoint: false },
  { code: 10, name: "float16", bits: 16, floatingPoint: true },
  { code: 11, name: "float64", bits: 64, floatingPoint: true },
  { code: 12, name: "uint32", bits: 32, floatingPoint: false },
  { code: 13, name: "uint64", bits: 64, floatingPoint: false },
  { code: 14, name: "complex64", bits: 64, floatingPoint: true },
  { code: 15, name: "complex128", bits: 128, floatingPoint: true },
  { code: 16, name: "bfloat16", bits: 16, floatingPoint: true },
  { code: 17, name: "float8e4m3fn", bits: 8, floatingPoint: true },
  { code: 18, name: "float8e4m3fnuz", bits: 8, floatingPoint: true },
  { code: 19, name: "float8e5m2", bits: 8, floatingPoint: true },
  { code: 20, name: "float8e5m2fnuz", bits: 8, floatingPoint: true },
  { code: 21, name: "uint4", bits: 4, floatingPoint: false },
  { code: 22, name: "int4", bits: 4, floatingPoint: false },
  { code: 23, name: "float4e2m1", bits: 4, floatingPoint: true },
];

const BY_CODE = new Map(TABLE.map((t) => [t.code, t]));
const BY_NAME = new Map(TABLE.map((t) => [t.name, t]));

/** The name for a stored code; "undefined" for 0 (no type given) and "unknown(N)" for codes newer than this table. */
export function elementTypeName(code: number): string {
  if (code === 0) return "undefined";
  return BY_CODE.get(code)?.name ?? `unknown(${code})`;
}

export function elementTypeByName(name: string): ElementType | undefined {
  return BY_NAME.get(name);
}

/** Bytes that `elements` values of this type take packed (4-bit types round up to whole bytes); undefined if not fixed-size. */
export function packedBytes(name: string, elements: number): number | undefined {
  const t = BY_NAME.get(name);
  if (t === undefined || t.bits === 0) return undefined;
  return Math.ceil((elements * t.bits) / 8);
}
