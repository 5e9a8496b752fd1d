// One serving instance: a worker thread holding one ONNX Runtime session with t intra-op threads. It pins its own
// thread to its first core and ORT's t−1 pool threads to the rest (session.intra_op_thread_affinities), so the
// instance never leaves its cores. Requests arrive and results leave through the slab hand-off (slab-hand-off.ts):
// the thread sleeps in Atomics.wait between requests, and no message is posted per request.
import { execFileSync } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from "node:worker_threads";
import * as ort from "onnxruntime-node";
import {
  DONE,
  FLAG_FAULT,
  FLAG_MOVED,
  FLAG_NEW_SLAB,
  flagsOf,
  grownSlabBytes,
  handOver,
  readTensors,
  setComputeMs,
  setFlags,
  slabBytes,
  waitForRequest,
  writeError,
  writeTensors,
  type SlabTensor,
} from "./slab-hand-off";
import { DATATYPES, elementCount, oipDatatypeOf, typedView, type WireTensor } from "./tensor-types";

export interface InstanceWorkerData {
  modelPath: string;
  threads: number;
  /** coreCpus[j]: the CPUs ORT thread j may use (j = 0 is this worker thread). */
  coreCpus: number[][];
  warmupInputs: WireTensor[];
  warmupIterations: number;
  allowSpinning: boolean;
  faultInjection: boolean;
  /** The hand-off's control block (slab-hand-off.ts) and the first input slab. */
  control: SharedArrayBuffer;
  inputSlab: SharedArrayBuffer;
  /** Replacement slabs, both ways, read synchronously beside the hand-off. */
  slabPort: MessagePort;
}

/** A replacement slab on the side port. */
export interface SlabMessage {
  slab: SharedArrayBuffer;
}

/** A large slice's tensors, moved over the side port (FLAG_MOVED), in the order of their descriptors. */
export interface MovedMessage {
  buffers: ArrayBuffer[];
}

export type WorkerMessage =
  | {
      kind: "ready";
      tid: number;
      poolTids: number[];
      sessionCreateMs: number;
      warmupMs: number;
      inputNames: string[];
      outputNames: string[];
      outputSlab: SharedArrayBuffer;
    }
  | { kind: "init-error"; message: string };

const data = workerData as InstanceWorkerData;
const port = parentPort!;

function threadIds(): number[] {
  return readdirSync("/proc/self/task").map(Number).filter(Number.isInteger);
}

function toOrtTensor(tensor: WireTensor): ort.Tensor {
  return new ort.Tensor(DATATYPES[tensor.datatype].ort as "float32", typedView(tensor) as Float32Array, tensor.shape);
}

/** An output's bytes as ORT left them (no copy: they are copied once, into the output slab). */
function outputOf(index: number, name: string, value: ort.Tensor): SlabTensor {
  const datatype = oipDatatypeOf(value.type);
  if (!datatype)
    throw new Error(`output ${name} has type ${value.type}, which the Open Inference Protocol cannot carry here`);
  const view = value.data as unknown as ArrayBufferView;
  const shape = value.dims as number[];
  const bytes = elementCount(shape) * DATATYPES[datatype].bytes;
  return { index, datatype, shape, bytes: new Uint8Array(view.buffer, view.byteOffset, bytes) };
}

/** Per-input buffers the slab's bytes are copied into (ONNX Runtime does not take shared memory), reused. */
const scratch: ArrayBuffer[] = [];
function scratchFor(index: number, bytes: number): ArrayBuffer {
  let buffer = scratch[index];
  if (!buffer || buffer.byteLength < bytes) scratch[index] = buffer = new ArrayBuffer(grownSlabBytes(0, bytes));
  return buffer;
}

async function main(): Promise<void> {
  const tid = Number(readlinkSync("/proc/thread-self").split("/").pop());
  // Pin the calling thread (ORT never pins it) before the session exists, so pool threads start on our cores.
  execFileSync("taskset", ["-p", "-c", data.coreCpus[0]!.join(","), String(tid)], { stdio: "ignore" });
  const before = new Set(threadIds());
  const started = performance.now();
  const affinities = data.coreCpus
    .slice(1)
    .map((cpus) => cpus.map((c) => String(c + 1)).join(","))
    .join(";");
  const session = await ort.InferenceSession.create(data.modelPath, {
    intraOpNumThreads: data.threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    extra: {
      session: {
        ...(data.threads > 1 ? { intra_op_thread_affinities: affinities } : {}),
        "intra_op.allow_spinning": data.allowSpinning ? "1" : "0",
      },
    },
  });
  const sessionCreateMs = performance.now() - started;
  const poolTids = threadIds().filter((id) => !before.has(id));

  const warmStart = performance.now();
  let warmOutputBytes = 0;
  for (let i = 0; i < data.warmupIterations; i++) {
    const feeds = Object.fromEntries(data.warmupInputs.map((t) => [t.name, toOrtTensor(t)]));
    const results = await session.run(feeds);
    warmOutputBytes = session.outputNames.reduce(
      (sum, name) => sum + (results[name]?.data as ArrayBufferView).byteLength,
      0,
    );
  }
  // Sized for the warm-up's outputs (the plan's batch), grown when a batch needs more.
  const outputSlab = new SharedArrayBuffer(grownSlabBytes(0, warmOutputBytes + 8 * session.outputNames.length));
  port.postMessage({
    kind: "ready",
    tid,
    poolTids,
    sessionCreateMs,
    warmupMs: performance.now() - warmStart,
    inputNames: [...session.inputNames],
    outputNames: [...session.outputNames],
    outputSlab,
  } satisfies WorkerMessage);

  void serve(session, outputSlab);
}

/** One request at a time: sleep until the dispatcher's side hands one over, run it, hand the result back. */
async function serve(session: ort.InferenceSession, firstOutputSlab: SharedArrayBuffer): Promise<void> {
  const control = new Int32Array(data.control);
  let inputSlab = data.inputSlab;
  let outputSlab = firstOutputSlab;
  const inputNames = session.inputNames;
  const outputNames = session.outputNames;
  for (;;) {
    waitForRequest(control);
    const flags = flagsOf(control);
    if (flags & FLAG_NEW_SLAB) inputSlab = (receiveMessageOnPort(data.slabPort)!.message as SlabMessage).slab;
    if (flags & FLAG_FAULT && data.faultInjection) {
      // A JavaScript error outside any handler: the thread dies like a real bug would kill it.
      setImmediate(() => {
        throw new Error("injected instance fault");
      });
      return;
    }
    let answerFlags = 0;
    try {
      const feeds: Record<string, ort.Tensor> = {};
      const moved =
        flags & FLAG_MOVED ? (receiveMessageOnPort(data.slabPort)!.message as MovedMessage).buffers : undefined;
      for (const t of readTensors(control, moved ?? inputSlab)) {
        const name = inputNames[t.index];
        if (name === undefined) throw new Error(`the model has no input ${t.index}`);
        const info = DATATYPES[t.datatype];
        // A moved tensor is ours already; one in the slab is copied out (ONNX Runtime takes no shared memory).
        let buffer = moved ? (t.bytes.buffer as ArrayBuffer) : undefined;
        if (!buffer) {
          buffer = scratchFor(t.index, t.bytes.byteLength);
          new Uint8Array(buffer, 0, t.bytes.byteLength).set(t.bytes);
        }
        const view = new info.array(buffer, 0, t.bytes.byteLength / info.bytes);
        feeds[name] = new ort.Tensor(info.ort as "float32", view as Float32Array, t.shape);
      }
      const t0 = performance.now();
      const results = await session.run(feeds);
      const computeMs = performance.now() - t0;
      const outputs = outputNames.map((name, index) => outputOf(index, name, results[name]!));
      const needed = slabBytes(outputs);
      if (needed > outputSlab.byteLength) {
        outputSlab = new SharedArrayBuffer(grownSlabBytes(outputSlab.byteLength, needed));
        data.slabPort.postMessage({ slab: outputSlab } satisfies SlabMessage);
        answerFlags = FLAG_NEW_SLAB;
      }
      writeTensors(control, outputSlab, outputs);
      setComputeMs(control, computeMs);
    } catch (error) {
      writeError(control, (error as Error).message);
    }
    setFlags(control, answerFlags);
    handOver(control, DONE);
  }
}

main().catch((error: Error) =>
  port.postMessage({ kind: "init-error", message: error.message } satisfies WorkerMessage),
);
