// The shape probe's child process (plain JavaScript, so it runs under bare `node` wherever the app runs):
// loads a model, declares every node output a graph output, runs it once on zero inputs and sends the shape of
// every tensor back over IPC. A separate process so that a model that exhausts memory or never finishes
// costs only this process, which the parent kills.
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
let patchedPath;

process.on("exit", () => {
  if (patchedPath) rmSync(patchedPath, { force: true });
  for (const dir of new Set(["/tmp", tmpdir()])) {
    try {
      rmSync(join(dir, `mat-debug-${process.pid}.log`), { force: true });
    } catch {
      // best effort: the parent removes it too
    }
  }
});

const ARRAYS = {
  float32: Float32Array,
  float64: Float64Array,
  float16: Uint16Array,
  int8: Int8Array,
  uint8: Uint8Array,
  int16: Int16Array,
  uint16: Uint16Array,
  int32: Int32Array,
  uint32: Uint32Array,
  int64: BigInt64Array,
  uint64: BigUint64Array,
  bool: Uint8Array,
};

function zeros(ort, input) {
  const count = input.shape.reduce((a, b) => a * b, 1);
  if (input.dataType === "string") return new ort.Tensor("string", new Array(count).fill(""), input.shape);
  const Ctor = ARRAYS[input.dataType];
  if (Ctor === undefined) {
    const error = new Error(`input "${input.name}" has element type ${input.dataType}, which the probe cannot feed`);
    error.stage = "input";
    throw error;
  }
  return new ort.Tensor(input.dataType, new Ctor(count), input.shape);
}

// With the answer, this process's peak resident memory (maxRSS is in KiB): the parent's /proc sampling can miss
// a child that answers and exits between two samples.
function reply(message) {
  process.send({ ...message, peakRssBytes: process.resourceUsage().maxRSS * 1024 }, () => process.exit(0));
}

process.once("message", async (request) => {
  let stage = "load";
  try {
    const ort = require("onnxruntime-node");
    const { onnx } = require("onnx-proto");
    let bytes = readFileSync(request.modelPath);
    const model = onnx.ModelProto.decode(bytes);
    bytes = undefined;
    // Repeated fields of a decoded message may be a shared frozen empty array: replace, then append.
    model.graph.output = [...model.graph.output];
    const declared = new Set(model.graph.output.map((o) => o.name));
    for (const node of model.graph.node) {
      for (const name of node.output) {
        if (name && !declared.has(name)) {
          // A name without a type: ONNX Runtime infers it, which is the point.
          model.graph.output.push(onnx.ValueInfoProto.create({ name }));
          declared.add(name);
        }
      }
    }
    const patched = onnx.ModelProto.encode(model).finish();
    // A model with external data is loaded from a file beside the original, so that ONNX Runtime finds its data
    // files by their locations relative to it.
    let source = patched;
    if (request.besideModel) {
      patchedPath = join(dirname(request.modelPath), `.probe-${process.pid}.onnx`);
      writeFileSync(patchedPath, patched);
      source = patchedPath;
    }
    const session = await ort.InferenceSession.create(source, {
      intraOpNumThreads: request.threads,
      interOpNumThreads: 1,
      executionMode: "sequential",
      // Every node's output is wanted as the graph computes it, so nothing may be fused away.
      graphOptimizationLevel: "disabled",
      enableCpuMemArena: false,
      logSeverityLevel: 3,
    });
    stage = "input";
    const feeds = {};
    for (const input of request.inputs) feeds[input.name] = zeros(ort, input);
    stage = "run";
    const results = await session.run(feeds);
    const shapes = {};
    for (const input of request.inputs) shapes[input.name] = input.shape;
    for (const [name, tensor] of Object.entries(results)) shapes[name] = Array.from(tensor.dims, Number);
    reply({ ok: true, shapes });
  } catch (error) {
    reply({ ok: false, stage: error?.stage ?? stage, message: String(error?.message ?? error) });
  }
});
