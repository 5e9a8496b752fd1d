// One profiling run of one thread count: a child process holding ONE ONNX Runtime session with t intra-op
// threads, pinned to its cores (this process's main thread by taskset, ORT's pool threads by
// intra_op_thread_affinities). It measures each batch size in turn and sends every cell back as it finishes.
// A process of its own so a cell's peak RSS is this instance's alone (VmHWM, reset through clear_refs).
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import * as ort from "onnxruntime-node";
import { cellStatistics, shouldStop, type StoppingRule } from "../../../../src/core/profiling/stopping-rule";
import { LatencyHistogram } from "../../../../src/core/stats/histogram";
import { concreteShape } from "../../../../src/core/model-analysis/serving-axes";
import { declaredDims, modelAxes } from "../model-axes";
import { DATATYPES, elementCount, oipDatatypeOf } from "../tensor-types";

export interface ProfilerRun {
  modelPath: string;
  threads: number;
  /** One CPU list per thread: coreCpus[0] for this process's main thread. */
  coreCpus: number[][];
  batches: number[];
  /** Sizes of the dynamic non-batch dimensions, by symbol. */
  dimensions: Record<string, number>;
  /** Batch-axis overrides by tensor name (null: none), as in the serving plan. */
  batchAxes?: Record<string, number | null>;
  rule: StoppingRule;
}

export type ProfilerMessage =
  | { kind: "cell"; threads: number; batch: number; stats: ReturnType<typeof cellStatistics>; stopReason: string; peakRssBytes: number | null; histogram: string }
  | { kind: "done" }
  | { kind: "error"; message: string };

const send = (message: ProfilerMessage) => process.send?.(message);

function vmHwmBytes(): number | null {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync("/proc/self/status", "utf8"));
  return match ? Number(match[1]) * 1024 : null;
}

function resetPeakRss(): void {
  try { writeFileSync("/proc/self/clear_refs", "5"); } catch { /* not permitted here: the peak then covers the whole run */ }
}

async function main(run: ProfilerRun): Promise<void> {
  execFileSync("taskset", ["-p", "-c", run.coreCpus[0]!.join(","), String(process.pid)], { stdio: "ignore" });
  const affinities = run.coreCpus.slice(1).map((cpus) => cpus.map((c) => String(c + 1)).join(",")).join(";");
  const session = await ort.InferenceSession.create(run.modelPath, {
    intraOpNumThreads: run.threads, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all",
    extra: { session: run.threads > 1 ? { intra_op_thread_affinities: affinities } : {} },
  });
  const describe = (list: readonly ort.InferenceSession.ValueMetadata[]) => list.map((m) => ({
    name: m.name,
    shape: m.isTensor ? m.shape.map((d) => (typeof d === "number" && d >= 0 ? d : -1)) : [],
    symbolicDims: m.isTensor ? m.shape.map((d) => (typeof d === "string" ? d : undefined)) : [],
  }));
  const inputs = describe(session.inputMetadata);
  // The same decision as the served model's (servingAxes): each input's own batch axis, the plan's dimensions.
  const axes = modelAxes(inputs, describe(session.outputMetadata), run.batchAxes ?? {});
  const tooBig = run.batches.find((b) => b > 1);
  if (!axes.batching.batchable && tooBig !== undefined) throw new Error(`this model cannot be batched (${axes.batching.reason}): profile batch 1 only, not ${tooBig}`);
  for (const batch of run.batches) {
    const feeds: Record<string, ort.Tensor> = {};
    for (const [index, meta] of session.inputMetadata.entries()) {
      if (!meta.isTensor) throw new Error(`input ${meta.name} is not a tensor`);
      const datatype = oipDatatypeOf(meta.type);
      if (!datatype) throw new Error(`input ${meta.name} has unsupported type ${meta.type}`);
      const shape = concreteShape({ name: meta.name, shape: declaredDims(inputs[index]!) }, axes.inputs[index]!, batch, run.dimensions, axes.batchSymbol);
      const info = DATATYPES[datatype];
      // Zeros for integer inputs (token ids stay in range), 0.5 for floats (no denormals, no shortcut on zeros).
      const data = new info.array(new ArrayBuffer(elementCount(shape) * info.bytes));
      if (datatype === "FP32" || datatype === "FP64") (data as Float32Array).fill(0.5);
      feeds[meta.name] = new ort.Tensor(info.ort as "float32", data as Float32Array, shape);
    }
    resetPeakRss();
    for (let i = 0; i < run.rule.warmup; i++) await session.run(feeds);
    const samples: number[] = [];
    const started = performance.now();
    let reason: string | null = null;
    while (!(reason = shouldStop(run.rule, samples, performance.now() - started))) {
      const t0 = performance.now();
      await session.run(feeds);
      samples.push(performance.now() - t0);
    }
    const histogram = LatencyHistogram.create();
    for (const s of samples) histogram.recordMs(s);
    send({ kind: "cell", threads: run.threads, batch, stats: cellStatistics(samples), stopReason: reason, peakRssBytes: vmHwmBytes(), histogram: histogram.encode() });
  }
  await session.release();
  send({ kind: "done" });
}

process.once("message", (run: ProfilerRun) => {
  main(run).then(
    () => setTimeout(() => process.exit(0), 20),
    (error: Error) => { send({ kind: "error", message: error.message }); setTimeout(() => process.exit(1), 20); },
  );
});
if (process.connected) process.on("disconnect", () => process.exit(0));
