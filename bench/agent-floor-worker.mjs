// The floor baseline's instance thread (bench/agent-floor-server.ts): pins itself to one CPU like an agent instance,
// sleeps in Atomics.wait, runs session.run on the bytes in the shared slab and writes the output back beside them.
// Plain JavaScript: it needs nothing of ours, so nothing has to load TypeScript in this thread.
import { execFileSync } from "node:child_process";
import { readlinkSync } from "node:fs";
import { workerData, parentPort } from "node:worker_threads";
import * as ort from "onnxruntime-node";

const { modelPath, cpu, control: controlBuffer, slab, inputBytes, shape } = workerData;
const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
if (cpu !== undefined) execFileSync("taskset", ["-p", "-c", String(cpu), String(tid)], { stdio: "ignore" });
const session = await ort.InferenceSession.create(modelPath, {
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: "sequential",
  graphOptimizationLevel: "all",
  extra: { session: { "intra_op.allow_spinning": "0" } },
});
const control = new Int32Array(controlBuffer);
const computeMs = new Float64Array(controlBuffer, 16, 1);
const input = new Float32Array(inputBytes / 4);
const inputName = session.inputNames[0];
const outputName = session.outputNames[0];
const bytes = new Uint8Array(slab);
parentPort.postMessage("ready");
for (;;) {
  while (Atomics.load(control, 0) !== 1) Atomics.wait(control, 0, Atomics.load(control, 0));
  new Uint8Array(input.buffer).set(bytes.subarray(0, inputBytes));
  const t0 = performance.now();
  const results = await session.run({ [inputName]: new ort.Tensor("float32", input, shape) });
  computeMs[0] = performance.now() - t0;
  const out = results[outputName].data;
  bytes.set(new Uint8Array(out.buffer, out.byteOffset, out.byteLength), inputBytes);
  control[1] = out.byteLength;
  Atomics.store(control, 0, 2);
  Atomics.notify(control, 0);
}
