// Open Inference Protocol request bodies (JSON tensors, or the binary tensor data extension) and a light check of
// response bodies: a 200 whose body is not an inference response counts as a bad response, never as a success.
import { LoadgenInputError } from "./errors";
import { OIP_DATATYPES, readElement } from "@packrat/contracts/oip-datatypes";
import type { OipInferRequest, OipParameters } from "@packrat/contracts/oip-infer";
import type { InputTensor } from "./oip-inputs";

export interface EncodedRequest {
  body: Buffer;
  /** Extra request headers (Inference-Header-Content-Length for binary bodies). */
  headers: Record<string, string>;
}

export interface EncodeOptions {
  /** Binary tensor data extension for inputs, and binary outputs asked for. */
  binary: boolean;
  id?: string;
  parameters?: OipParameters;
}

export function encodeInferRequest(inputs: readonly InputTensor[], options: EncodeOptions): EncodedRequest {
  const id = options.id === undefined ? {} : { id: options.id };
  if (options.binary) {
    const header = Buffer.from(
      JSON.stringify({
        ...id,
        parameters: { ...options.parameters, binary_data_output: true },
        inputs: inputs.map((t) => ({
          name: t.name,
          shape: t.shape,
          datatype: t.datatype,
          parameters: { binary_data_size: t.bytes.length },
        })),
      } satisfies OipInferRequest),
    );
    return {
      body: Buffer.concat([header, ...inputs.map((t) => t.bytes)]),
      headers: { "inference-header-content-length": String(header.length) },
    };
  }
  const described = inputs.map((t) => {
    if (t.datatype === "FP16")
      throw new LoadgenInputError("unsupported", `input ${t.name}`, "FP16 tensors travel only in binary: add --binary");
    const view = new DataView(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength);
    const count = t.bytes.length / OIP_DATATYPES[t.datatype].bytes;
    const data = new Array<number | boolean>(count);
    for (let i = 0; i < count; i++)
      data[i] = t.datatype === "BOOL" ? readElement(view, "BOOL", i) !== 0 : readElement(view, t.datatype, i);
    return { name: t.name, shape: t.shape, datatype: t.datatype, data };
  });
  const body = JSON.stringify({
    ...id,
    ...(options.parameters ? { parameters: options.parameters } : {}),
    inputs: described,
  } satisfies OipInferRequest);
  return { body: Buffer.from(body), headers: { "content-type": "application/json" } };
}

/** Why a 200 response is not a well-formed inference response, or undefined when it is. */
export function checkInferResponse(body: Buffer, headerLength: string | undefined): string | undefined {
  let jsonEnd = body.length;
  if (headerLength !== undefined) {
    const n = Number(headerLength);
    if (!Number.isInteger(n) || n < 0 || n > body.length)
      return `Inference-Header-Content-Length ${headerLength} does not fit a ${body.length}-byte body`;
    jsonEnd = n;
  }
  let header: unknown;
  try {
    header = JSON.parse(body.subarray(0, jsonEnd).toString("utf8"));
  } catch {
    return "the response header is not JSON";
  }
  const outputs = (header as { outputs?: unknown }).outputs;
  if (!Array.isArray(outputs) || outputs.length === 0) return "the response has no outputs";
  let binaryBytes = 0;
  for (const output of outputs as Array<{ data?: unknown; parameters?: { binary_data_size?: unknown } }>) {
    const size = output?.parameters?.binary_data_size;
    if (typeof size === "number") binaryBytes += size;
    else if (!Array.isArray(output?.data)) return "an output has neither data nor binary_data_size";
  }
  if (binaryBytes !== body.length - jsonEnd)
    return `binary outputs claim ${binaryBytes} bytes, the body carries ${body.length - jsonEnd}`;
  return undefined;
}
