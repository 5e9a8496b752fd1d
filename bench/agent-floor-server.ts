// The agent benchmark's floor: the least a server with the agent's architecture must do. A raw TCP server (no HTTP
// framework: the request line and headers are scanned by hand) reads an OIP binary request, copies its tensor into
// a SharedArrayBuffer and wakes one worker thread pinned to a CPU (Atomics.notify; the thread sleeps in
// Atomics.wait), waits for it with Atomics.waitAsync, and writes the answer with one socket write. What the agent
// adds over this is what our code costs; what this adds over the single-threaded baseline is what the host charges
// for a thread hand-off. One model input and output, FP32, binary tensors only.
// Usage: node --import tsx bench/agent-floor-server.ts MODEL.onnx "1,3,32,32" [CPU] → prints "listening PORT".
import { createServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { Worker } from "node:worker_threads";

const [modelPath, shapeArg, cpuArg] = process.argv.slice(2);
if (!modelPath || !shapeArg) throw new Error('usage: agent-floor-server.ts MODEL.onnx "1,3,32,32" [CPU]');
const shape = shapeArg.split(",").map(Number);
const inputBytes = shape.reduce((a, b) => a * b, 1) * 4;
const control = new SharedArrayBuffer(64);
const state = new Int32Array(control);
const computeMs = new Float64Array(control, 16, 1);
// Room for the input and an output as large (a classifier's output is far smaller).
const slab = new SharedArrayBuffer(inputBytes * 2 + 1024 * 1024);
const slabBytes = new Uint8Array(slab);
const worker = new Worker(new URL("./agent-floor-worker.mjs", import.meta.url), {
  workerData: { modelPath, cpu: cpuArg === undefined ? undefined : Number(cpuArg), control, slab, inputBytes, shape },
});
await new Promise((done, fail) => {
  worker.once("message", done);
  worker.once("error", fail);
});

const HEADER_END = Buffer.from("\r\n\r\n");
const waitAsync = (
  Atomics as unknown as {
    waitAsync: (a: Int32Array, i: number, v: number) => { async: boolean; value: Promise<unknown> };
  }
).waitAsync;

async function answer(socket: Socket, head: string, body: Buffer): Promise<void> {
  const jsonLength = Number(/\r\ninference-header-content-length:\s*(\d+)/i.exec(head)?.[1] ?? body.length);
  const header = JSON.parse(body.subarray(0, jsonLength).toString("utf8")) as { inputs: Array<{ shape: number[] }> };
  if (header.inputs[0]!.shape.join(",") !== shape.join(",") || body.length - jsonLength !== inputBytes) {
    const message = JSON.stringify({ error: "the floor server takes one FP32 input of its fixed shape, binary" });
    socket.write(
      `HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\ncontent-length: ${message.length}\r\n\r\n${message}`,
    );
    return;
  }
  slabBytes.set(body.subarray(jsonLength), 0);
  Atomics.store(state, 0, 1);
  Atomics.notify(state, 0);
  const waiting = waitAsync(state, 0, 1);
  if (waiting.async) await waiting.value;
  const outBytes = state[1]!;
  Atomics.store(state, 0, 0);
  const json = Buffer.from(
    JSON.stringify({
      model_name: "floor",
      outputs: [
        {
          name: "output",
          datatype: "FP32",
          shape: [shape[0], outBytes / 4 / shape[0]!],
          parameters: { binary_data_size: outBytes },
        },
      ],
    }),
  );
  const headers = Buffer.from(
    `HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ninference-header-content-length: ${json.length}\r\ncontent-length: ${json.length + outBytes}\r\nserver-timing: compute;dur=${computeMs[0]!.toFixed(3)}\r\n\r\n`,
  );
  socket.write(Buffer.concat([headers, json, slabBytes.subarray(inputBytes, inputBytes + outBytes)]));
}

const server = createServer((socket) => {
  socket.setNoDelay(true);
  let pending: Buffer = Buffer.alloc(0);
  let busy = false;
  const next = async () => {
    if (busy) return;
    const end = pending.indexOf(HEADER_END);
    if (end < 0) return;
    const head = pending.subarray(0, end).toString("latin1");
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    const start = end + HEADER_END.length;
    if (pending.length < start + length) return;
    const body = pending.subarray(start, start + length);
    pending = pending.subarray(start + length);
    busy = true;
    await answer(socket, head, body).catch(() => socket.destroy());
    busy = false;
    void next();
  };
  socket.on("data", (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    void next();
  });
  socket.on("error", () => socket.destroy());
});
server.listen(0, "127.0.0.1", () => console.log(`listening ${(server.address() as AddressInfo).port}`));
process.on("SIGTERM", () => {
  server.close();
  void worker.terminate().then(() => process.exit(0));
});
