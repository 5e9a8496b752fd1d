import { describe, expect, it } from "vitest";
import { BinaryRequestStream } from "./binary-request-stream";
import { OipError, parseInferRequest, type ParsedInferRequest } from "./oip-codec";
import type { ModelMetadata } from "./served-model";

// Two binary inputs (so the body has a boundary between tensors as well as after the header) and one in JSON.
const metadata: ModelMetadata = {
  name: "m",
  version: "1",
  inputs: [
    { name: "a", datatype: "FP32", shape: [-1, 3], symbolicDims: ["batch", undefined] },
    { name: "b", datatype: "INT64", shape: [-1, 2], symbolicDims: ["batch", undefined] },
    { name: "c", datatype: "INT32", shape: [-1], symbolicDims: ["batch"] },
  ],
  outputs: [{ name: "y", datatype: "FP32", shape: [-1], symbolicDims: ["batch"] }],
};

function requestBody(rows: number, sizes: { a?: unknown; b?: unknown } = {}, extra = Buffer.alloc(0)) {
  const a = new Float32Array(rows * 3).map((_, i) => i + 0.5);
  const b = new BigInt64Array(rows * 2).map((_, i) => BigInt(-i));
  const header = Buffer.from(
    JSON.stringify({
      id: "r",
      inputs: [
        { name: "a", datatype: "FP32", shape: [rows, 3], parameters: { binary_data_size: sizes.a ?? a.byteLength } },
        { name: "c", datatype: "INT32", shape: [rows], data: Array.from({ length: rows }, (_, i) => i) },
        { name: "b", datatype: "INT64", shape: [rows, 2], parameters: { binary_data_size: sizes.b ?? b.byteLength } },
      ],
    }),
  );
  const body = Buffer.concat([header, Buffer.from(a.buffer), Buffer.from(b.buffer), extra]);
  return { body, headerLength: header.length };
}

/** The body in chunks of the given sizes (the last size repeats). */
function chunked(body: Buffer, sizes: number[]): Buffer[] {
  const out: Buffer[] = [];
  let at = 0;
  for (let i = 0; at < body.length; i++) {
    const n = sizes[Math.min(i, sizes.length - 1)]!;
    out.push(Buffer.from(body.subarray(at, at + n))); // own memory, as socket chunks are
    at += n;
  }
  return out;
}

function streamed(body: Buffer, headerLength: number | string, sizes: number[], declared = true): ParsedInferRequest {
  const stream = new BinaryRequestStream(String(headerLength), declared ? body.length : undefined, metadata);
  for (const chunk of chunked(body, sizes)) stream.push(chunk);
  return stream.finish();
}

const bytesOf = (r: ParsedInferRequest) => r.inputs.map((t) => ({ ...t, buffer: Buffer.from(t.buffer) }));

function errorOf(run: () => unknown): { status: number; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OipError);
    return { status: (error as OipError).status, message: (error as OipError).message };
  }
  throw new Error("expected an OipError");
}

describe("BinaryRequestStream", () => {
  it("decodes a body split anywhere (1-byte chunks, across the header/tensor and tensor/tensor boundaries) as the whole body decodes", () => {
    const { body, headerLength } = requestBody(3);
    const whole = parseInferRequest(body, String(headerLength), metadata);
    const splits: number[][] = [
      [body.length],
      [1],
      [7],
      [headerLength - 1, 2, 1],
      [headerLength, 36],
      [headerLength + 35, 2],
      [headerLength + 5, 1000],
    ];
    for (const sizes of splits) {
      for (const declared of [true, false]) {
        const got = streamed(body, headerLength, sizes, declared);
        expect(bytesOf(got)).toEqual(bytesOf(whole));
        expect({ ...got, inputs: [] }).toEqual({ ...whole, inputs: [] });
      }
    }
  });

  it("gives each binary tensor a buffer of its own, exactly its size (the tensor itself, not a view of the body)", () => {
    const { body, headerLength } = requestBody(2);
    const got = streamed(body, headerLength, [5]);
    expect(got.inputs.map((t) => t.buffer.byteLength)).toEqual([2 * 3 * 4, 2 * 2 * 8, 2 * 4]);
    expect(Array.from(new Float32Array(got.inputs[0]!.buffer))).toEqual([0.5, 1.5, 2.5, 3.5, 4.5, 5.5]);
    expect(Array.from(new BigInt64Array(got.inputs[1]!.buffer))).toEqual([0n, -1n, -2n, -3n]);
  });

  it("refuses what the buffered decoder refuses, with the same status and message, with and without a Content-Length", () => {
    const cases: Array<{ body: Buffer; headerLength: number | string }> = [
      requestBody(2, { a: 8 }), // binary_data_size disagrees with the shape
      requestBody(2, { b: "32" }),
      { ...requestBody(2), body: requestBody(2).body.subarray(0, requestBody(2).body.length - 3) }, // truncated
      requestBody(2, {}, Buffer.alloc(5)), // bytes no input claims
      { body: Buffer.from("{}"), headerLength: 999 }, // header longer than the body
      { body: Buffer.from("{}"), headerLength: "x" },
      { body: Buffer.from("{}"), headerLength: -1 },
      { body: Buffer.from("{not json}"), headerLength: 10 },
      { body: Buffer.from(""), headerLength: 0 },
    ];
    for (const { body, headerLength } of cases) {
      const expected = errorOf(() => parseInferRequest(body, String(headerLength), metadata));
      for (const declared of [true, false])
        for (const sizes of [[body.length || 1], [1], [3]])
          expect(errorOf(() => streamed(body, headerLength, sizes, declared))).toEqual(expected);
    }
  });

  it("knows a bad request once its header is in, before any tensor byte is copied", () => {
    const { body, headerLength } = requestBody(2, { a: 8 });
    const stream = new BinaryRequestStream(String(headerLength), body.length, metadata);
    stream.push(body.subarray(0, headerLength));
    expect(stream.failure?.message).toMatch(/binary_data_size is 8, shape \[2,3\] of FP32 needs 24 bytes/);
    // A header that says more bytes than the body has is known from the Content-Length alone.
    const truncated = requestBody(2);
    const short = new BinaryRequestStream(String(truncated.headerLength), truncated.body.length - 3, metadata);
    short.push(truncated.body.subarray(0, truncated.headerLength));
    expect(short.failure?.message).toMatch(/input b: binary data is truncated/);
    expect(new BinaryRequestStream("999", 2, metadata).failure?.message).toMatch(/Inference-Header-Content-Length/);
  });

  it("says when the header is done: the rest of the body is tensor bytes", () => {
    const { body, headerLength } = requestBody(1);
    const stream = new BinaryRequestStream(String(headerLength), body.length, metadata);
    stream.push(body.subarray(0, headerLength - 1));
    expect(stream.headerDone).toBe(false);
    stream.push(body.subarray(headerLength - 1, headerLength));
    expect(stream.headerDone).toBe(true);
    expect(stream.failure).toBeUndefined();
  });
});
