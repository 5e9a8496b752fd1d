import { describe, expect, it } from "vitest";
import { OipError, parseInferRequest } from "./oip-codec";
import type { ModelMetadata } from "./served-model";

const metadata: ModelMetadata = {
  name: "m",
  version: "1",
  inputs: [{ name: "x", datatype: "FP32", shape: [-1, 2, 2], symbolicDims: ["batch", undefined, undefined] }],
  outputs: [{ name: "y", datatype: "FP32", shape: [-1, 1], symbolicDims: ["batch", undefined] }],
};
const parse = (data: unknown, datatype = "FP32") =>
  parseInferRequest(
    Buffer.from(JSON.stringify({ inputs: [{ name: "x", shape: [1, 2, 2], datatype, data }] })),
    undefined,
    metadata,
  );

describe("parseInferRequest: JSON data nesting", () => {
  it("takes data flat or nested per the shape (rank 3: up to 3 levels of arrays)", () => {
    const expected = [1, 2, 3, 4];
    for (const data of [
      [1, 2, 3, 4],
      [
        [1, 2],
        [3, 4],
      ],
      [
        [
          [1, 2],
          [3, 4],
        ],
      ],
    ]) {
      expect(Array.from(new Float32Array(parse(data).inputs[0]!.buffer))).toEqual(expected);
    }
  });

  it("refuses data nested deeper than the shape's rank with a 400 naming the input", () => {
    for (const data of [
      [
        [
          [
            [1, 2],
            [3, 4],
          ],
        ],
      ],
      [1, 2, 3, [[[4]]]],
    ]) {
      expect(() => parse(data)).toThrow(OipError);
      expect(() => parse(data)).toThrow(/input x: data is nested deeper than its shape's dimensions/);
    }
  });

  it("refuses 200 000 levels of nesting with a 400, not a stack overflow (fuzz seed deep-nesting 87)", () => {
    const body = `{"inputs":[{"name":"x","shape":[1,2,2],"datatype":"FP32","data":[1,2,3,${"[".repeat(200_000)}4${"]".repeat(200_000)}]}]}`;
    let caught: unknown;
    try {
      parseInferRequest(Buffer.from(body), undefined, metadata);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(OipError);
    expect((caught as OipError).status).toBe(400);
  });

  it("does not take prototype keys for datatypes (constructor, toString)", () => {
    for (const datatype of ["constructor", "toString", "__proto__"])
      expect(() => parse([1, 2, 3, 4], datatype)).toThrow(/unsupported datatype/);
  });
});
