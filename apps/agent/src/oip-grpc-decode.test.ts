// gRPC ModelInferRequest → the agent's tensors, per datatype field of InferTensorContents and raw_input_contents,
// with the request as proto-loader decodes it (every field present, int64 as numbers).
import { describe, expect, it } from "vitest";
import { decodeGrpcInferRequest, type ModelInferRequest } from "./oip-grpc-server";
import { OipError } from "./oip-codec";
import type { ModelMetadata } from "./served-model";

const metadata: ModelMetadata = {
  name: "m",
  version: "1",
  inputs: [
    { name: "ids", datatype: "INT64", shape: [-1, 2], symbolicDims: ["batch", undefined] },
    { name: "mask", datatype: "BOOL", shape: [-1, 2], symbolicDims: ["batch", undefined] },
  ],
  outputs: [{ name: "out", datatype: "FP32", shape: [-1, 1], symbolicDims: ["batch", undefined] }],
};

const empty = {
  bool_contents: [] as boolean[],
  int_contents: [] as number[],
  int64_contents: [] as number[],
  uint_contents: [] as number[],
  uint64_contents: [] as number[],
  fp32_contents: [] as number[],
  fp64_contents: [] as number[],
  bytes_contents: [] as Buffer[],
};
const request = (
  inputs: ModelInferRequest["inputs"],
  raw: Buffer[] = [],
  extra: Partial<ModelInferRequest> = {},
): ModelInferRequest => ({
  model_name: "m",
  model_version: "",
  id: "",
  parameters: {},
  inputs,
  outputs: [],
  raw_input_contents: raw,
  ...extra,
});
const input = (name: string, datatype: string, contents: Partial<typeof empty> | null) => ({
  name,
  datatype,
  shape: [2, 2],
  parameters: {},
  contents: contents === null ? null : { ...empty, ...contents },
});

describe("decodeGrpcInferRequest", () => {
  it("reads typed contents in each datatype's field, and parameters by their oneof", () => {
    const parsed = decodeGrpcInferRequest(
      request(
        [
          input("ids", "INT64", { int64_contents: [1, 2, 3, 4] }),
          input("mask", "BOOL", { bool_contents: [true, false, false, true] }),
        ],
        [],
        {
          id: "r1",
          parameters: { deadline_ms: { parameter_choice: "int64_param", int64_param: 250 } },
          outputs: [{ name: "out", parameters: {} }],
        },
      ),
      metadata,
    );
    expect(parsed.id).toBe("r1");
    expect(parsed.rows).toBe(2);
    expect(parsed.deadlineMs).toBe(250);
    expect(parsed.outputs).toEqual(["out"]);
    expect(Array.from(new BigInt64Array(parsed.inputs[0]!.buffer))).toEqual([1n, 2n, 3n, 4n]);
    expect(Array.from(new Uint8Array(parsed.inputs[1]!.buffer))).toEqual([1, 0, 0, 1]);
  });

  it("reads raw_input_contents, one entry per input in the request's order", () => {
    const ids = Buffer.from(new BigInt64Array([5n, 6n, 7n, 8n]).buffer);
    const mask = Buffer.from([0, 1, 1, 0]);
    const parsed = decodeGrpcInferRequest(
      request([input("mask", "BOOL", null), input("ids", "INT64", null)], [mask, ids]),
      metadata,
    );
    // Tensors come out in the model's order whatever the request's.
    expect(parsed.inputs.map((t) => t.name)).toEqual(["ids", "mask"]);
    expect(Array.from(new BigInt64Array(parsed.inputs[0]!.buffer))).toEqual([5n, 6n, 7n, 8n]);
  });

  it("refuses contents and raw together, a wrong raw size, and a wrong field for the datatype", () => {
    const raw = [Buffer.alloc(32), Buffer.alloc(4)];
    const cases: Array<[() => unknown, RegExp]> = [
      [
        () =>
          decodeGrpcInferRequest(
            request([input("ids", "INT64", { int64_contents: [1, 2, 3, 4] }), input("mask", "BOOL", null)], raw),
            metadata,
          ),
        /contents and raw_input_contents are both set/,
      ],
      [
        () =>
          decodeGrpcInferRequest(
            request([input("ids", "INT64", null), input("mask", "BOOL", null)], [Buffer.alloc(31), Buffer.alloc(4)]),
            metadata,
          ),
        /raw_input_contents\[0\] has 31 bytes, shape \[2,2\] of INT64 needs 32/,
      ],
      [
        () =>
          decodeGrpcInferRequest(
            request([
              input("ids", "INT64", { fp32_contents: [1, 2, 3, 4] }),
              input("mask", "BOOL", { bool_contents: [true, true, true, true] }),
            ]),
            metadata,
          ),
        /input ids: shape needs 4 values, data has 0/,
      ],
    ];
    for (const [run, message] of cases) {
      let caught: unknown;
      try {
        run();
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(OipError);
      expect((caught as OipError).message).toMatch(message);
    }
  });
});
