import { onnx } from "./proto";

export interface FloatTensor {
  dims: number[];
  values: Float32Array;
}

type IntLike = number | { toNumber(): number };
const num = (v: IntLike): number => (typeof v === "number" ? v : v.toNumber());

/**
 * The float32 initializers of a model, by name, as aligned copies (raw_data slices of a decoded buffer start at
 * arbitrary offsets, and a Float32Array view needs a multiple of 4; TOOLCHAIN.md). For tests and small models:
 * it copies every weight.
 */
export function readFloatInitializers(bytes: Uint8Array): Map<string, FloatTensor> {
  const model = onnx.ModelProto.decode(bytes);
  const out = new Map<string, FloatTensor>();
  for (const t of model.graph?.initializer ?? []) {
    if (t.dataType !== onnx.TensorProto.DataType.FLOAT) continue;
    const dims = (t.dims ?? []).map((d) => num(d as IntLike));
    let values: Float32Array;
    if (t.rawData && t.rawData.length > 0) {
      const copy = new Uint8Array(t.rawData.length);
      copy.set(t.rawData);
      values = new Float32Array(copy.buffer);
    } else {
      values = Float32Array.from(t.floatData ?? []);
    }
    out.set(t.name ?? "", { dims, values });
  }
  return out;
}
