// Open Inference Protocol (KServe v2) tensor datatypes: the one module the agent, the load generator, the fuzzer and
// the dashboard share. Element size, value range, the ONNX element type each maps to (ONNX Runtime's name), the typed
// array that holds its elements, and the little-endian element codecs.
export const OIP_DATATYPES = {
  BOOL: { bytes: 1, integer: true, min: 0, max: 1, onnx: "bool" },
  UINT8: { bytes: 1, integer: true, min: 0, max: 255, onnx: "uint8" },
  UINT16: { bytes: 2, integer: true, min: 0, max: 65_535, onnx: "uint16" },
  UINT32: { bytes: 4, integer: true, min: 0, max: 4_294_967_295, onnx: "uint32" },
  UINT64: { bytes: 8, integer: true, min: 0, max: Number.MAX_SAFE_INTEGER, onnx: "uint64" },
  INT8: { bytes: 1, integer: true, min: -128, max: 127, onnx: "int8" },
  INT16: { bytes: 2, integer: true, min: -32_768, max: 32_767, onnx: "int16" },
  INT32: { bytes: 4, integer: true, min: -2_147_483_648, max: 2_147_483_647, onnx: "int32" },
  INT64: { bytes: 8, integer: true, min: Number.MIN_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER, onnx: "int64" },
  FP16: { bytes: 2, integer: false, min: -65_504, max: 65_504, onnx: "float16" },
  FP32: { bytes: 4, integer: false, min: -Number.MAX_VALUE, max: Number.MAX_VALUE, onnx: "float32" },
  FP64: { bytes: 8, integer: false, min: -Number.MAX_VALUE, max: Number.MAX_VALUE, onnx: "float64" },
} as const;

export type OipDatatype = keyof typeof OIP_DATATYPES;
export type OnnxElementType = (typeof OIP_DATATYPES)[OipDatatype]["onnx"];

export function isOipDatatype(value: string): value is OipDatatype {
  // Own keys only: "constructor" or "toString" are in every object literal.
  return Object.hasOwn(OIP_DATATYPES, value);
}

const byOnnx = new Map<string, OipDatatype>(
  Object.entries(OIP_DATATYPES).map(([name, info]) => [info.onnx, name as OipDatatype]),
);

/** The OIP datatype of an ONNX element type (ONNX Runtime's spelling), or undefined when OIP has none we serve. */
export function oipDatatypeOfOnnx(onnxType: string): OipDatatype | undefined {
  return byOnnx.get(onnxType);
}

/** OIP names of ONNX types the protocol has but the agent does not serve (shown in examples as they are named). */
export const OIP_ONLY_NAMES: Readonly<Record<string, string>> = { bfloat16: "BF16", string: "BYTES" };

export type TypedArray =
  | Uint8Array
  | Uint16Array
  | Uint32Array
  | BigUint64Array
  | Int8Array
  | Int16Array
  | Int32Array
  | BigInt64Array
  | Float32Array
  | Float64Array;
export type TypedArrayConstructor = new (buffer: ArrayBuffer, offset?: number, length?: number) => TypedArray;

/** The typed array that holds each datatype's elements (FP16 as raw 16-bit words). */
export const OIP_TYPED_ARRAYS: Readonly<Record<OipDatatype, TypedArrayConstructor>> = {
  BOOL: Uint8Array,
  UINT8: Uint8Array,
  UINT16: Uint16Array,
  UINT32: Uint32Array,
  UINT64: BigUint64Array,
  INT8: Int8Array,
  INT16: Int16Array,
  INT32: Int32Array,
  INT64: BigInt64Array,
  FP16: Uint16Array,
  FP32: Float32Array,
  FP64: Float64Array,
};

/** Datatypes whose typed array holds bigints (64-bit integers). */
export function isBigIntDatatype(datatype: OipDatatype): boolean {
  return datatype === "UINT64" || datatype === "INT64";
}

/** Writes element i of a little-endian tensor. */
export function writeElement(view: DataView, datatype: OipDatatype, i: number, value: number): void {
  const at = i * OIP_DATATYPES[datatype].bytes;
  switch (datatype) {
    case "BOOL":
    case "UINT8":
      view.setUint8(at, value);
      break;
    case "INT8":
      view.setInt8(at, value);
      break;
    case "UINT16":
      view.setUint16(at, value, true);
      break;
    case "INT16":
      view.setInt16(at, value, true);
      break;
    case "UINT32":
      view.setUint32(at, value, true);
      break;
    case "INT32":
      view.setInt32(at, value, true);
      break;
    case "UINT64":
      view.setBigUint64(at, BigInt(value), true);
      break;
    case "INT64":
      view.setBigInt64(at, BigInt(value), true);
      break;
    case "FP16":
      view.setUint16(at, float16Bits(value), true);
      break;
    case "FP32":
      view.setFloat32(at, value, true);
      break;
    case "FP64":
      view.setFloat64(at, value, true);
      break;
  }
}

/** Reads element i of a little-endian tensor as a JSON number (FP16 decoded; 64-bit integers as numbers). */
export function readElement(view: DataView, datatype: OipDatatype, i: number): number {
  const at = i * OIP_DATATYPES[datatype].bytes;
  switch (datatype) {
    case "BOOL":
    case "UINT8":
      return view.getUint8(at);
    case "INT8":
      return view.getInt8(at);
    case "UINT16":
      return view.getUint16(at, true);
    case "INT16":
      return view.getInt16(at, true);
    case "UINT32":
      return view.getUint32(at, true);
    case "INT32":
      return view.getInt32(at, true);
    case "UINT64":
      return Number(view.getBigUint64(at, true));
    case "INT64":
      return Number(view.getBigInt64(at, true));
    case "FP16":
      return float16Value(view.getUint16(at, true));
    case "FP32":
      return view.getFloat32(at, true);
    case "FP64":
      return view.getFloat64(at, true);
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** IEEE 754 half-precision bits of a number (round to nearest even; overflow → ±∞; NaN stays NaN). */
export function float16Bits(value: number): number {
  f32[0] = value;
  const x = u32[0]!;
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  let e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal
    mantissa |= 0x800000; // the implicit 1
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mantissa & ((1 << shift) - 1);
    let bits = mantissa >>> shift;
    if (rest > half || (rest === half && bits & 1)) bits++;
    return sign | bits;
  }
  const rest = mantissa & 0x1fff;
  mantissa >>>= 13;
  if (rest > 0x1000 || (rest === 0x1000 && mantissa & 1)) {
    mantissa++;
    if (mantissa === 0x400) {
      mantissa = 0;
      e++;
      if (e >= 0x1f) return sign | 0x7c00;
    }
  }
  return sign | (e << 10) | mantissa;
}

/** The number that half-precision bits stand for. */
export function float16Value(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1;
  const e = (bits >>> 10) & 0x1f;
  const m = bits & 0x3ff;
  if (e === 0) return sign * m * 2 ** -24;
  if (e === 0x1f) return m ? Number.NaN : sign * Infinity;
  return sign * (1 + m / 1024) * 2 ** (e - 15);
}
