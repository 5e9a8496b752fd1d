// Good traffic around a fuzz run: a correct OIP request for the tiny CNN (JSON or binary both ways), answered by
// the agent and compared with ONNX Runtime run directly on the same input.
import * as ort from "onnxruntime-node";
import { Prng } from "@/core/stats/prng";
import type { OipModelSpec } from "./oip-mutator";

/** The tiny CNN as GET /v2/models/tiny-cnn describes it. */
export const TINY_CNN_OIP_SPEC: OipModelSpec = {
  name: "tiny-cnn",
  inputs: [{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }],
  outputs: [{ name: "logits" }],
};

const ROW = 3 * 32 * 32;

export interface GoodRequestResult {
  status: number;
  /** Every output value within 1e-5 + 1e-4·|expected| of session.run's. */
  close: boolean;
  /** The worst |agent − direct| over the output. */
  maxAbsError: number;
  latencyMs: number;
}

export function tinyCnnRows(seed: number, rows: number): Float32Array {
  const random = new Prng(seed);
  return Float32Array.from({ length: rows * ROW }, () => random.normal() * 2);
}

export async function goodTinyCnnRequest(
  agentUrl: string,
  reference: ort.InferenceSession,
  seed: number,
  rows: number,
  binary: boolean,
): Promise<GoodRequestResult> {
  const data = tinyCnnRows(seed, rows);
  const shape = [rows, 3, 32, 32];
  let body: Buffer;
  const headers: Record<string, string> = {};
  if (binary) {
    const header = Buffer.from(
      JSON.stringify({
        inputs: [{ name: "input", shape, datatype: "FP32", parameters: { binary_data_size: data.byteLength } }],
        outputs: [{ name: "logits", parameters: { binary_data: true } }],
      }),
    );
    body = Buffer.concat([header, Buffer.from(data.buffer)]);
    headers["content-type"] = "application/octet-stream";
    headers["inference-header-content-length"] = String(header.length);
  } else {
    body = Buffer.from(
      JSON.stringify({ inputs: [{ name: "input", shape, datatype: "FP32", data: Array.from(data) }] }),
    );
    headers["content-type"] = "application/json";
  }
  const started = performance.now();
  const response = await fetch(`${agentUrl}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    headers,
    body: body as BodyInit,
  });
  const raw = Buffer.from(await response.arrayBuffer());
  const latencyMs = performance.now() - started;
  if (response.status !== 200)
    return { status: response.status, close: false, maxAbsError: Number.POSITIVE_INFINITY, latencyMs };
  let values: ArrayLike<number>;
  if (binary) {
    const tail = raw.subarray(Number(response.headers.get("inference-header-content-length")));
    values = new Float32Array(tail.buffer.slice(tail.byteOffset, tail.byteOffset + tail.length));
  } else {
    values = (JSON.parse(raw.toString()) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data;
  }
  const direct = (await reference.run({ input: new ort.Tensor("float32", data, shape) })).logits!.data as Float32Array;
  let close = values.length === direct.length;
  let maxAbsError = 0;
  for (let i = 0; i < direct.length && close; i++) {
    const error = Math.abs(values[i]! - direct[i]!);
    maxAbsError = Math.max(maxAbsError, error);
    if (error > 1e-5 + 1e-4 * Math.abs(direct[i]!)) close = false;
  }
  return { status: 200, close, maxAbsError, latencyMs };
}
