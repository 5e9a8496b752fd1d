// The agent benchmark's baseline: the minimal way to serve a model over HTTP in Node — one process, one ONNX
// Runtime session (same thread settings as an agent instance), `session.run` on the main thread, no dispatcher,
// no worker threads, no validation beyond what it needs. It speaks enough OIP v2 (JSON and binary tensors, one FP32
// input) for the same client to drive it, and reports its session.run time as `Server-Timing: compute`.
// Usage: node --import tsx bench/agent-baseline-server.ts MODEL.onnx THREADS → prints "listening PORT".
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import * as ort from "onnxruntime-node";

const [modelPath, threadsArg] = process.argv.slice(2);
if (!modelPath) throw new Error("usage: agent-baseline-server.ts MODEL.onnx [THREADS]");
const threads = Number(threadsArg ?? 1);
const session = await ort.InferenceSession.create(modelPath, {
  intraOpNumThreads: threads,
  interOpNumThreads: 1,
  executionMode: "sequential",
  graphOptimizationLevel: "all",
});
const inputName = session.inputNames[0]!;
const outputName = session.outputNames[0]!;

interface InputHeader {
  name: string;
  shape: number[];
  data?: number[];
  parameters?: { binary_data_size?: number };
}

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on("data", (c: Buffer) => chunks.push(c));
  request.on("end", async () => {
    try {
      const body = Buffer.concat(chunks);
      const headerLength = request.headers["inference-header-content-length"];
      const jsonEnd = headerLength === undefined ? body.length : Number(headerLength);
      const header = JSON.parse(body.subarray(0, jsonEnd).toString("utf8")) as {
        inputs: InputHeader[];
        parameters?: { binary_data_output?: boolean };
      };
      const input = header.inputs[0]!;
      let data: Float32Array;
      if (input.parameters?.binary_data_size !== undefined) {
        // Copy out: the body's bytes are not 4-byte aligned.
        data = new Float32Array(
          body.buffer.slice(body.byteOffset + jsonEnd, body.byteOffset + jsonEnd + input.parameters.binary_data_size),
        );
      } else {
        data = Float32Array.from(input.data!);
      }
      const t0 = performance.now();
      const results = await session.run({ [inputName]: new ort.Tensor("float32", data, input.shape) });
      const computeMs = performance.now() - t0;
      const output = results[outputName]!;
      const values = output.data as Float32Array;
      const timing = { "server-timing": `compute;dur=${computeMs.toFixed(3)}` };
      if (header.parameters?.binary_data_output) {
        const bytes = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
        const out = Buffer.from(
          JSON.stringify({
            model_name: "baseline",
            outputs: [
              {
                name: outputName,
                datatype: "FP32",
                shape: output.dims,
                parameters: { binary_data_size: bytes.length },
              },
            ],
          }),
        );
        response.writeHead(200, {
          "content-type": "application/octet-stream",
          "inference-header-content-length": String(out.length),
          "content-length": out.length + bytes.length,
          ...timing,
        });
        response.end(Buffer.concat([out, bytes]));
      } else {
        const out = Buffer.from(
          JSON.stringify({
            model_name: "baseline",
            outputs: [{ name: outputName, datatype: "FP32", shape: output.dims, data: Array.from(values) }],
          }),
        );
        response.writeHead(200, { "content-type": "application/json", "content-length": out.length, ...timing });
        response.end(out);
      }
    } catch (error) {
      response.writeHead(400, { "content-type": "application/json" });
      response.end(JSON.stringify({ error: (error as Error).message }));
    }
  });
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on("SIGTERM", () => {
  server.close();
  server.closeAllConnections();
  void session.release().then(() => process.exit(0));
});
