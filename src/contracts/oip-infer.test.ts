import { describe, expect, it } from "vitest";
import { oipInferRequestSchema, plainInferRequest } from "./oip-infer";

const request = (parameters: Record<string, unknown>) => ({
  parameters,
  inputs: [{ name: "x", shape: [1], datatype: "FP32", data: [1] }],
});

describe("the inference request schema", () => {
  it("takes the protocol's scalar parameters, and a gRPC parameter that names no choice", () => {
    expect(
      oipInferRequestSchema.safeParse(
        request({ deadline_ms: 50, binary_data_output: true, packrat_fault: "throw", none: undefined }),
      ).success,
    ).toBe(true);
  });

  it("refuses a nested parameter value at its path, however deep, without walking it", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i++) deep = [deep];
    const parsed = oipInferRequestSchema.safeParse(request({ deadline_ms: deep }));
    expect(parsed.success).toBe(false);
    expect(parsed.error!.issues[0]!.path).toEqual(["parameters", "deadline_ms"]);
  });
});

describe("the plain request's fast check", () => {
  const good = {
    id: "r1",
    parameters: { binary_data_output: true, deadline_ms: 20, none: null },
    inputs: [
      { name: "x", shape: [1, 3], datatype: "FP32", parameters: { binary_data_size: 12 } },
      { name: "y", shape: [2], datatype: "INT64", data: [1, [2]] },
    ],
    outputs: [{ name: "out", parameters: { binary_data: true } }],
  };
  const variants: Array<[string, unknown]> = [
    ["not an object", [good]],
    ["null", null],
    ["a numeric id", { ...good, id: 7 }],
    ["a nested parameter", { ...good, parameters: { deadline_ms: [1] } }],
    ["no inputs", { ...good, inputs: [] }],
    ["inputs not a list", { ...good, inputs: { name: "x" } }],
    ["a negative dimension", { ...good, inputs: [{ ...good.inputs[0], shape: [-1] }] }],
    ["a fractional dimension", { ...good, inputs: [{ ...good.inputs[0], shape: [1.5] }] }],
    ["an unsafe dimension", { ...good, inputs: [{ ...good.inputs[0], shape: [2 ** 60] }] }],
    ["a string dimension", { ...good, inputs: [{ ...good.inputs[0], shape: ["1"] }] }],
    ["a nameless input", { ...good, inputs: [{ shape: [1], datatype: "FP32", data: [1] }] }],
    ["a numeric datatype", { ...good, inputs: [{ ...good.inputs[0], datatype: 1 }] }],
    ["an input parameter list", { ...good, inputs: [{ ...good.inputs[0], parameters: [1] }] }],
    ["outputs not a list", { ...good, outputs: { name: "out" } }],
    ["a nameless output", { ...good, outputs: [{ parameters: {} }] }],
    ["an output's nested parameter", { ...good, outputs: [{ name: "out", parameters: { binary_data: {} } }] }],
  ];

  it("takes a plain request as it is, as the schema would", () => {
    expect(plainInferRequest(good)).toBe(good);
    expect(oipInferRequestSchema.parse(good)).toEqual(good);
  });

  it.each(variants)("leaves %s to the schema, which refuses it", (_what, body) => {
    expect(plainInferRequest(body)).toBeUndefined();
    expect(oipInferRequestSchema.safeParse(body).success).toBe(false);
  });
});
