import { describe, expect, it } from "vitest";
import { checkInferResponse, encodeInferRequest } from "./oip-body";
import type { InputTensor } from "./oip-inputs";

const tensor: InputTensor = {
  name: "input",
  datatype: "FP32",
  shape: [1, 3],
  bytes: new Uint8Array(new Float32Array([0.5, -1, 2]).buffer),
};

describe("encodeInferRequest", () => {
  it("JSON: tensors as flat data arrays, as the OIP REST spec writes them", () => {
    const { body, headers } = encodeInferRequest([tensor], { binary: false, id: "r1" });
    expect(headers["content-type"]).toBe("application/json");
    expect(JSON.parse(body.toString())).toEqual({
      id: "r1",
      inputs: [{ name: "input", shape: [1, 3], datatype: "FP32", data: [0.5, -1, 2] }],
    });
  });

  it("binary: JSON header with binary_data_size, then the raw bytes; its length in Inference-Header-Content-Length", () => {
    const { body, headers } = encodeInferRequest([tensor], { binary: true });
    const headerLength = Number(headers["inference-header-content-length"]);
    expect(JSON.parse(body.subarray(0, headerLength).toString())).toEqual({
      parameters: { binary_data_output: true },
      inputs: [{ name: "input", shape: [1, 3], datatype: "FP32", parameters: { binary_data_size: 12 } }],
    });
    // 3 FP32 values = 12 bytes after the header.
    expect(body.length).toBe(headerLength + 12);
    expect(
      Array.from(new Float32Array(body.buffer.slice(body.byteOffset + headerLength, body.byteOffset + body.length))),
    ).toEqual([0.5, -1, 2]);
  });

  it("JSON booleans and 64-bit integers; FP16 only in binary", () => {
    const flags: InputTensor = { name: "mask", datatype: "BOOL", shape: [2], bytes: new Uint8Array([1, 0]) };
    const ids: InputTensor = {
      name: "ids",
      datatype: "INT64",
      shape: [2],
      bytes: new Uint8Array(new BigInt64Array([5n, -3n]).buffer),
    };
    expect(
      JSON.parse(encodeInferRequest([flags, ids], { binary: false }).body.toString()).inputs.map(
        (i: { data: unknown }) => i.data,
      ),
    ).toEqual([
      [true, false],
      [5, -3],
    ]);
    const half: InputTensor = { name: "h", datatype: "FP16", shape: [1], bytes: new Uint8Array(2) };
    expect(() => encodeInferRequest([half], { binary: false })).toThrow(/--binary/);
  });
});

describe("checkInferResponse", () => {
  it("accepts JSON and binary responses whose sizes add up", () => {
    expect(
      checkInferResponse(
        Buffer.from('{"model_name":"m","outputs":[{"name":"y","datatype":"FP32","shape":[1,1],"data":[1]}]}'),
        undefined,
      ),
    ).toBeUndefined();
    const header = Buffer.from(
      '{"outputs":[{"name":"y","datatype":"FP32","shape":[1,2],"parameters":{"binary_data_size":8}}]}',
    );
    expect(checkInferResponse(Buffer.concat([header, Buffer.alloc(8)]), String(header.length))).toBeUndefined();
  });

  it("names what is wrong with a body that is not an inference response", () => {
    const header = Buffer.from('{"outputs":[{"name":"y","parameters":{"binary_data_size":8}}]}');
    expect(checkInferResponse(Buffer.concat([header, Buffer.alloc(4)]), String(header.length))).toMatch(
      /claim 8 bytes, the body carries 4/,
    );
    expect(checkInferResponse(Buffer.from("<html>"), undefined)).toMatch(/not JSON/);
    expect(checkInferResponse(Buffer.from('{"outputs":[]}'), undefined)).toMatch(/no outputs/);
    expect(checkInferResponse(Buffer.from("{}"), "99")).toMatch(/does not fit/);
  });
});
