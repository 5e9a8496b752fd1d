// Open Inference Protocol (KServe v2) tensor datatypes: the one table the agent, the load generator and the
// dashboard share. Element size, value range, and the ONNX element type each maps to (ONNX Runtime's name).
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

const byOnnx = new Map<string, OipDatatype>(Object.entries(OIP_DATATYPES).map(([name, info]) => [info.onnx, name as OipDatatype]));

/** The OIP datatype of an ONNX element type (ONNX Runtime's spelling), or undefined when OIP has none we serve. */
export function oipDatatypeOfOnnx(onnxType: string): OipDatatype | undefined {
  return byOnnx.get(onnxType);
}

/** OIP names of ONNX types the protocol has but the agent does not serve (shown in examples as they are named). */
export const OIP_ONLY_NAMES: Readonly<Record<string, string>> = { bfloat16: "BF16", string: "BYTES" };
