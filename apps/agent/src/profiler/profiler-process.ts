// One profiler process per thread count: it holds ONE ONNX Runtime session with t intra-op threads, pinned to its
// cores (this process's main thread by taskset, ORT's pool threads by intra_op_thread_affinities), and runs the
// rounds its runner sends: for each task of a round (a batch size, in the order given) the warm-up, then the
// iterations, timed one by one, with the CPU time others took on those cores meanwhile. The runner keeps every
// process of a sweep alive and runs one at a time, so rounds of different thread counts interleave too.
// A process of its own so a cell's peak RSS is this instance's alone (VmHWM, reset through clear_refs).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { concreteShape } from "@packrat/core/model-analysis/serving-axes";
import { declaredDims, modelAxes } from "../model-axes";
import { DATATYPES, elementCount, oipDatatypeOf } from "../tensor-types";
import { cpuSnapshot, interferenceBetween } from "./cpu-accounting";

export interface ProfilerInit {
  kind: "init";
  modelPath: string;
  threads: number;
  /** One CPU list per thread: coreCpus[0] for this process's main thread. */
  coreCpus: number[][];
  /** Sizes of the dynamic non-batch dimensions, by symbol. */
  dimensions: Record<string, number>;
  /** Every batch size it will be asked for (checked against the model's batching at start). */
  batches: number[];
  /** Batch-axis overrides by tensor name (null: none), as in the serving plan. */
  batchAxes?: Record<string, number | null>;
}

export interface ProfilerTask {
  batch: number;
  warmup: number;
  iterations: number;
}

export type ProfilerCommand = ProfilerInit | { kind: "round"; tasks: ProfilerTask[] } | { kind: "stop" };

export interface TaskResult {
  batch: number;
  samplesMs: number[];
  /** Wall time of the task, warm-up included. */
  elapsedMs: number;
  peakRssBytes: number | null;
  /** Other processes' CPU time on this process's CPUs during the measured iterations, and those CPUs' time. */
  otherCpuMs: number;
  capacityCpuMs: number;
}

export type ProfilerMessage =
  { kind: "ready" } | { kind: "round"; results: TaskResult[] } | { kind: "error"; message: string };

const send = (message: ProfilerMessage) => process.send?.(message);

function vmHwmBytes(): number | null {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
  return match ? Number(match[1]) * 1024 : null;
}

function resetPeakRss(): void {
  try {
    writeFileSync("/proc/self/clear_refs", "5");
  } catch {
    /* not permitted here: the peak then covers the whole run */
  }
}

let session: ort.InferenceSession | undefined;
let init: ProfilerInit | undefined;
let inputs: Array<{ name: string; shape: number[]; symbolicDims: Array<string | undefined> }> = [];
let axes: ReturnType<typeof modelAxes> | undefined;
const feedsByBatch = new Map<number, Record<string, ort.Tensor>>();

function feedsFor(batch: number): Record<string, ort.Tensor> {
  const cached = feedsByBatch.get(batch);
  if (cached) return cached;
  const feeds: Record<string, ort.Tensor> = {};
  for (const [index, meta] of session!.inputMetadata.entries()) {
    if (!meta.isTensor) throw new Error(`input ${meta.name} is not a tensor`);
    const datatype = oipDatatypeOf(meta.type);
    if (!datatype) throw new Error(`input ${meta.name} has unsupported type ${meta.type}`);
    const shape = concreteShape(
      { name: meta.name, shape: declaredDims(inputs[index]!) },
      axes!.inputs[index]!,
      batch,
      init!.dimensions,
      axes!.batchSymbol,
    );
    const info = DATATYPES[datatype];
    // Zeros for integer inputs (token ids stay in range), 0.5 for floats (no denormals, no shortcut on zeros).
    const data = new info.array(new ArrayBuffer(elementCount(shape) * info.bytes));
    if (datatype === "FP32" || datatype === "FP64") (data as Float32Array).fill(0.5);
    feeds[meta.name] = new ort.Tensor(info.ort as "float32", data as Float32Array, shape);
  }
  feedsByBatch.set(batch, feeds);
  return feeds;
}

async function start(run: ProfilerInit): Promise<void> {
  init = run;
  execFileSync("taskset", ["-p", "-c", run.coreCpus[0]!.join(","), String(process.pid)], { stdio: "ignore" });
  const affinities = run.coreCpus
    .slice(1)
    .map((cpus) => cpus.map((c) => String(c + 1)).join(","))
    .join(";");
  session = await ort.InferenceSession.create(run.modelPath, {
    intraOpNumThreads: run.threads,
    interOpNumThreads: 1,
    executionMode: "sequential",
    graphOptimizationLevel: "all",
    extra: { session: run.threads > 1 ? { intra_op_thread_affinities: affinities } : {} },
  });
  const describe = (list: readonly ort.InferenceSession.ValueMetadata[]) =>
    list.map((m) => ({
      name: m.name,
      shape: m.isTensor ? m.shape.map((d) => (typeof d === "number" && d >= 0 ? d : -1)) : [],
      symbolicDims: m.isTensor ? m.shape.map((d) => (typeof d === "string" ? d : undefined)) : [],
    }));
  inputs = describe(session.inputMetadata);
  // The same decision as the served model's (servingAxes): each input's own batch axis, the plan's dimensions.
  axes = modelAxes(inputs, describe(session.outputMetadata), run.batchAxes ?? {});
  const tooBig = run.batches.find((b) => b > 1);
  if (!axes.batching.batchable && tooBig !== undefined)
    throw new Error(`this model cannot be batched (${axes.batching.reason}): profile batch 1 only, not ${tooBig}`);
}

async function runRound(tasks: ProfilerTask[]): Promise<TaskResult[]> {
  const cpus = [...new Set(init!.coreCpus.flat())];
  const results: TaskResult[] = [];
  for (const task of tasks) {
    const feeds = feedsFor(task.batch);
    const started = performance.now();
    resetPeakRss();
    for (let i = 0; i < task.warmup; i++) await session!.run(feeds);
    const samplesMs: number[] = [];
    const before = cpuSnapshot(cpus);
    for (let i = 0; i < task.iterations; i++) {
      const t0 = performance.now();
      await session!.run(feeds);
      samplesMs.push(performance.now() - t0);
    }
    const { otherMs, capacityMs } = interferenceBetween(before, cpuSnapshot(cpus), cpus.length);
    results.push({
      batch: task.batch,
      samplesMs,
      elapsedMs: performance.now() - started,
      peakRssBytes: vmHwmBytes(),
      otherCpuMs: otherMs,
      capacityCpuMs: capacityMs,
    });
  }
  return results;
}

const fail = (error: Error) => {
  send({ kind: "error", message: error.message });
  setTimeout(() => process.exit(1), 20);
};
process.on("message", (command: ProfilerCommand) => {
  if (command.kind === "init") start(command).then(() => send({ kind: "ready" }), fail);
  else if (command.kind === "round") runRound(command.tasks).then((results) => send({ kind: "round", results }), fail);
  else
    void (session?.release() ?? Promise.resolve()).then(
      () => setTimeout(() => process.exit(0), 20),
      () => process.exit(0),
    );
});
// The parent talks to this process only over IPC, and waits on it between commands: the channel keeps it alive
// (a preload the parent was started with, inherited through execArgv, may have unref'd it), and its closing ends it.
if (process.connected) {
  process.channel?.ref();
  process.on("disconnect", () => process.exit(0));
}
