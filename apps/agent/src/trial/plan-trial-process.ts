// One plan trial: a child process that starts every plan's instances at once (pinned worker threads, as the serving
// process runs them), puts a real Dispatcher with batch timeout 0 in front of each plan, and sends batches of B
// synthetic rows of the serving shape, one at a time, through it. Plans take turns in rounds (rotating order, a
// pause first so the previous plan's spinning pool threads stop); each turn lasts about `roundMs`. Per batch it
// records the dispatcher's time (dispatch → merged result: split, hand-off, compute, merge) and the slowest
// instance's own session.run, so the per-batch overhead is measured too. A process of its own: cancelling kills it.
import { concreteShape, type ServingAxes } from "@packrat/core/model-analysis/serving-axes";
import { Dispatcher, type DispatchTarget } from "../dispatcher";
import { Instance } from "../instance";
import { batchLayout, declaredDims, modelAxes } from "../model-axes";
import { readModelMetadata, type ModelMetadata } from "../served-model";
import { DATATYPES, elementCount, type WireTensor } from "../tensor-types";

export interface TrialPlanRun {
  key: string;
  /** One entry per instance: its threads, sub-batch and CPUs (coreCpus[j] for ORT thread j). */
  instances: Array<{ threads: number; batch: number; coreCpus: number[][] }>;
}

export interface TrialRun {
  modelPath: string;
  batch: number;
  dimensions: Record<string, number>;
  /** Batch-axis overrides by tensor, as in the serving plan: inputs are built and split along each one's axis. */
  batchAxes?: Record<string, number | null>;
  plans: TrialPlanRun[];
  rounds: number;
  roundMs: number;
  settleMs: number;
  minBatchesPerTurn: number;
  warmupIterations: number;
  allowSpinning: boolean;
  /** Rounds stop once this much time has passed since the process started (the result then has fewer rounds). */
  maxDurationMs: number;
}

export interface TrialTurn {
  batches: number;
  meanMs: number;
  dispatchMeanMs: number;
  instanceMeanMs: number;
}

export type TrialMessage =
  | { kind: "started"; key: string; error?: string; startMs: number }
  | { kind: "round"; round: number; rounds: number }
  | { kind: "result"; plans: Array<{ key: string; error?: string; turns: TrialTurn[] }>; stoppedEarly: boolean }
  | { kind: "error"; message: string };

const send = (message: TrialMessage) => process.send?.(message);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Zeros for integer inputs (token ids stay in range), 0.5 for floats, as the profiler feeds them; each input
 * shaped by the served model's own rule (its batch axis, wherever it is, takes the rows). */
function syntheticInputs(
  metadata: ModelMetadata,
  axes: ServingAxes,
  rows: number,
  dimensions: Record<string, number>,
  fill: boolean,
): WireTensor[] {
  return metadata.inputs.map((input, index) => {
    const shape = concreteShape(
      { name: input.name, shape: declaredDims(input) },
      axes.inputs[index]!,
      rows,
      dimensions,
      axes.batchSymbol,
    );
    const info = DATATYPES[input.datatype];
    const buffer = new ArrayBuffer(elementCount(shape) * info.bytes);
    if (fill && input.datatype === "FP32") new Float32Array(buffer).fill(0.5);
    if (fill && input.datatype === "FP64") new Float64Array(buffer).fill(0.5);
    return { name: input.name, datatype: input.datatype, shape, buffer };
  });
}

interface LivePlan {
  key: string;
  instances: Instance[];
  dispatcher?: Dispatcher;
  error?: string;
  turns: TrialTurn[];
  /** The slowest instance's session.run in the batch being measured. */
  batchInstanceMs: number;
}

async function startPlan(
  run: TrialRun,
  plan: TrialPlanRun,
  metadata: ModelMetadata,
  axes: ServingAxes,
): Promise<LivePlan> {
  const live: LivePlan = { key: plan.key, instances: [], turns: [], batchInstanceMs: 0 };
  const t0 = performance.now();
  try {
    // One at a time: an instance finds its ORT pool threads by diffing this process's threads around its session.
    for (const [id, spec] of plan.instances.entries()) {
      const instance = new Instance({
        id,
        threads: spec.threads,
        batch: spec.batch,
        coreCpus: spec.coreCpus,
        version: "trial",
        modelPath: run.modelPath,
        warmupInputs: syntheticInputs(metadata, axes, spec.batch, run.dimensions, false),
        warmupIterations: run.warmupIterations,
        allowSpinning: run.allowSpinning,
        faultInjection: false,
      });
      live.instances.push(instance);
      await instance.start();
    }
    const targets: DispatchTarget[] = live.instances.map((instance) => ({
      spec: instance.spec,
      get state() {
        return instance.state;
      },
      run: (inputs) =>
        instance.run(inputs).then((r) => {
          live.batchInstanceMs = Math.max(live.batchInstanceMs, r.computeMs);
          return r;
        }),
    }));
    live.dispatcher = new Dispatcher({
      batchSize: run.batch,
      batchTimeoutMs: 0,
      maxQueueRows: run.batch * 4,
      instances: () => targets,
      layout: batchLayout(axes),
    });
  } catch (error) {
    live.error = (error as Error).message;
    await Promise.all(live.instances.map((i) => i.stop()));
    live.instances = [];
  }
  send({ kind: "started", key: plan.key, error: live.error, startMs: performance.now() - t0 });
  return live;
}

async function turn(run: TrialRun, plan: LivePlan, template: WireTensor[]): Promise<TrialTurn> {
  const copy = () => template.map((t) => ({ ...t, shape: [...t.shape], buffer: t.buffer.slice(0) }));
  const one = async () => {
    const inputs = copy();
    plan.batchInstanceMs = 0;
    const t0 = performance.now();
    const result = await plan.dispatcher!.infer(inputs);
    return { totalMs: performance.now() - t0, dispatchMs: result.timing.computeMs, instanceMs: plan.batchInstanceMs };
  };
  await one(); // warm-up, not counted: caches, this plan's threads waking up
  const samples: Array<Awaited<ReturnType<typeof one>>> = [];
  const started = performance.now();
  while (samples.length < run.minBatchesPerTurn || (performance.now() - started < run.roundMs && samples.length < 1000))
    samples.push(await one());
  return {
    batches: samples.length,
    meanMs: mean(samples.map((s) => s.totalMs)),
    dispatchMeanMs: mean(samples.map((s) => s.dispatchMs)),
    instanceMeanMs: mean(samples.map((s) => s.instanceMs)),
  };
}

async function main(run: TrialRun): Promise<void> {
  const started = performance.now();
  const metadata = await readModelMetadata("trial", "trial", run.modelPath);
  const axes = modelAxes(metadata.inputs, metadata.outputs, run.batchAxes ?? {});
  const template = syntheticInputs(metadata, axes, run.batch, run.dimensions, true);
  const plans: LivePlan[] = [];
  try {
    for (const plan of run.plans) plans.push(await startPlan(run, plan, metadata, axes));
    const ready = plans.filter((p) => p.dispatcher);
    let stoppedEarly = false;
    for (let round = 0; round < run.rounds && ready.length > 0; round++) {
      if (round > 0 && performance.now() - started > run.maxDurationMs) {
        stoppedEarly = true;
        break;
      }
      // Rotating order (A B C, B C A, …): no plan always follows the same one.
      const order = [...ready.slice(round % ready.length), ...ready.slice(0, round % ready.length)];
      for (const plan of order) {
        await sleep(run.settleMs);
        plan.turns.push(await turn(run, plan, template));
      }
      send({ kind: "round", round: round + 1, rounds: run.rounds });
    }
    send({ kind: "result", plans: plans.map((p) => ({ key: p.key, error: p.error, turns: p.turns })), stoppedEarly });
  } finally {
    await Promise.all(plans.flatMap((p) => p.instances.map((i) => i.stop())));
  }
}

process.once("message", (run: TrialRun) => {
  main(run).then(
    () => setTimeout(() => process.exit(0), 20),
    (error: Error) => {
      send({ kind: "error", message: error.message });
      setTimeout(() => process.exit(1), 20);
    },
  );
});
// The parent talks to this process only over IPC, and waits on it between commands: the channel keeps it alive
// (a preload the parent was started with, inherited through execArgv, may have unref'd it), and its closing ends it.
if (process.connected) {
  process.channel?.ref();
  process.on("disconnect", () => process.exit(0));
}
