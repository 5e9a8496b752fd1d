// Open Inference Protocol tensor datatypes as the load generator writes them: the shared table, and element codecs.
import { OIP_DATATYPES, type OipDatatype } from "@packrat/contracts/oip-datatypes";

export { isOipDatatype, OIP_DATATYPES, type OipDatatype } from "@packrat/contracts/oip-datatypes";

/** Writes element i of a little-endian tensor. */
export function writeElement(view: DataView, datatype: OipDatatype, i: number, value: number): void {
  const at = i * OIP_DATATYPES[datatype].bytes;
  switch (datatype) {
    case "BOOL": case "UINT8": view.setUint8(at, value); break;
    case "INT8": view.setInt8(at, value); break;
    case "UINT16": view.setUint16(at, value, true); break;
    case "INT16": view.setInt16(at, value, true); break;
    case "UINT32": view.setUint32(at, value, true); break;
    case "INT32": view.setInt32(at, value, true); break;
    case "UINT64": view.setBigUint64(at, BigInt(value), true); break;
    case "INT64": view.setBigInt64(at, BigInt(value), true); break;
    case "FP16": view.setUint16(at, float16Bits(value), true); break;
    case "FP32": view.setFloat32(at, value, true); break;
    case "FP64": view.setFloat64(at, value, true); break;
  }
}

/** Reads element i of a little-endian tensor as a JSON number (FP16 decoded; 64-bit integers as numbers). */
export function readElement(view: DataView, datatype: OipDatatype, i: number): number {
  const at = i * OIP_DATATYPES[datatype].bytes;
  switch (datatype) {
    case "BOOL": case "UINT8": return view.getUint8(at);
    case "INT8": return view.getInt8(at);
    case "UINT16": return view.getUint16(at, true);
    case "INT16": return view.getInt16(at, true);
    case "UINT32": return view.getUint32(at, true);
    case "INT32": return view.getInt32(at, true);
    case "UINT64": return Number(view.getBigUint64(at, true));
    case "INT64": return Number(view.getBigInt64(at, true));
    case "FP16": return float16Value(view.getUint16(at, true));
    case "FP32": return view.getFloat32(at, true);
    case "FP64": return view.getFloat64(at, true);
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
    if (rest > half || (rest === half && (bits & 1))) bits++;
    return sign | bits;
  }
  const rest = mantissa & 0x1fff;
  mantissa >>>= 13;
  if (rest > 0x1000 || (rest === 0x1000 && (mantissa & 1))) {
    mantissa++;
    if (mantissa === 0x400) { mantissa = 0; e++; if (e >= 0x1f) return sign | 0x7c00; }
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
