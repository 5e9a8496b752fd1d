// Hand-made ONNX files that are wrong in one particular way, for the validator's and the upload's tests.
import { DataType, onnx } from "./proto";

const info = (name: string, elemType: number = DataType.FLOAT) => ({
  name,
  type: { tensorType: { elemType, shape: { dim: [{ dimParam: "batch" }, { dimValue: 4 }] } } },
});

/** y = op(x), x and y [batch, 4] float32: with an unknown op ONNX Runtime has no kernel for it. */
export function oneNodeModel(opType: string, domain = "", opsets = [{ domain: "", version: 17 }]): Uint8Array {
  return onnx.ModelProto.encode({
    irVersion: 8,
    opsetImport: opsets,
    graph: {
      name: "one",
      input: [info("x")],
      output: [info("y")],
      node: [{ opType, domain, input: ["x"], output: ["y"] }],
    },
  }).finish();
}

/** Add of a float32 and an int64 tensor: a valid protobuf that ONNX Runtime's type check refuses at load. */
export function typeMismatchModel(): Uint8Array {
  return onnx.ModelProto.encode({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: "mismatch",
      input: [info("a"), info("b", DataType.INT64)],
      output: [info("y")],
      node: [{ opType: "Add", input: ["a", "b"], output: ["y"] }],
    },
  }).finish();
}

/** y = x + w with w [4] kept in "weights.bin" beside the model (external data). */
export function externalDataModel(): Uint8Array {
  return onnx.ModelProto.encode({
    irVersion: 8,
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: "external",
      input: [info("x")],
      output: [info("y")],
      initializer: [
        {
          name: "w",
          dims: [4],
          dataType: DataType.FLOAT,
          dataLocation: onnx.TensorProto.DataLocation.EXTERNAL,
          externalData: [
            { key: "location", value: "weights.bin" },
            { key: "offset", value: "0" },
            { key: "length", value: "16" },
          ],
        },
      ],
      node: [{ opType: "Add", input: ["x", "w"], output: ["y"] }],
    },
  }).finish();
}

/** `count` bytes from a seeded xorshift32: the same "random file" in every run. */
export function randomBytes(count: number, seed = 0x9e3779b9): Uint8Array {
  const out = new Uint8Array(count);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}
