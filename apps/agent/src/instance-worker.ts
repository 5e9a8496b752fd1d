// One serving instance: a worker thread holding one ONNX Runtime session with t intra-op threads. It pins its own
// thread to its first core and ORT's t−1 pool threads to the rest (session.intra_op_thread_affinities), so the
// instance never leaves its cores. Tensors arrive and leave as transferred ArrayBuffers (no copy across threads).
import { execFileSync } from "node:child_process";
import { readdirSync, readlinkSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import * as ort from "onnxruntime-node";
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
}

export type WorkerRequest = { kind: "run"; seq: number; inputs: WireTensor[]; fault?: "throw" };

export type WorkerMessage =
  | {
      kind: "ready";
      tid: number;
      poolTids: number[];
      sessionCreateMs: number;
      warmupMs: number;
      inputNames: string[];
      outputNames: string[];
    }
  | { kind: "result"; seq: number; outputs: WireTensor[]; computeMs: number }
  | { kind: "run-error"; seq: number; message: string }
  | { kind: "init-error"; message: string };

const data = workerData as InstanceWorkerData;
const port = parentPort!;

function threadIds(): number[] {
  return readdirSync("/proc/self/task").map(Number).filter(Number.isInteger);
}

function toOrtTensor(tensor: WireTensor): ort.Tensor {
  return new ort.Tensor(DATATYPES[tensor.datatype].ort as "float32", typedView(tensor) as Float32Array, tensor.shape);
}

function fromOrtTensor(name: string, value: ort.Tensor): WireTensor {
  const datatype = oipDatatypeOf(value.type);
  if (!datatype)
    throw new Error(`output ${name} has type ${value.type}, which the Open Inference Protocol cannot carry here`);
  const view = value.data as unknown as ArrayBufferView;
  const bytes = elementCount(value.dims as number[]) * DATATYPES[datatype].bytes;
  // A fresh buffer we own, so it can be transferred (ORT's may be external memory, which cannot be).
  const buffer = (view.buffer as ArrayBuffer).slice(view.byteOffset, view.byteOffset + bytes);
  return { name, datatype, shape: [...value.dims] as number[], buffer };
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
  for (let i = 0; i < data.warmupIterations; i++) {
    const feeds = Object.fromEntries(data.warmupInputs.map((t) => [t.name, toOrtTensor(t)]));
    await session.run(feeds);
  }
  port.postMessage({
    kind: "ready",
    tid,
    poolTids,
    sessionCreateMs,
    warmupMs: performance.now() - warmStart,
    inputNames: [...session.inputNames],
    outputNames: [...session.outputNames],
  } satisfies WorkerMessage);

  port.on("message", async (request: WorkerRequest) => {
    if (request.fault === "throw" && data.faultInjection) {
      // A JavaScript error outside any handler: the thread dies like a real bug would kill it.
      setImmediate(() => {
        throw new Error("injected instance fault");
      });
      return;
    }
    try {
      const feeds = Object.fromEntries(request.inputs.map((t) => [t.name, toOrtTensor(t)]));
      const t0 = performance.now();
      const results = await session.run(feeds);
      const computeMs = performance.now() - t0;
      const outputs = session.outputNames.map((name) => fromOrtTensor(name, results[name]!));
      port.postMessage(
        { kind: "result", seq: request.seq, outputs, computeMs } satisfies WorkerMessage,
        outputs.map((o) => o.buffer),
      );
    } catch (error) {
      port.postMessage({
        kind: "run-error",
        seq: request.seq,
        message: (error as Error).message,
      } satisfies WorkerMessage);
    }
  });
}

main().catch((error: Error) =>
  port.postMessage({ kind: "init-error", message: error.message } satisfies WorkerMessage),
);
