// One model being served: its metadata, its instances (pinned worker threads) and its dispatcher. Instances that
// crash are recreated with backoff; five crashes within a minute mark the model failed (reported, not retried).
import * as ort from "onnxruntime-node";
import { allocate } from "@packrat/core/allocator/allocate";
import { diffAllocations } from "@packrat/core/allocator/diff-allocations";
import type { HostTopology } from "@packrat/core/topology/types";
import { parseCpuList } from "@packrat/core/topology/cpulist";
import { planBatchSize, type ServingPlan } from "@packrat/contracts/serving-plan";
import type { ReconfigurationReport } from "@packrat/contracts/agent-protocol";
import { BatchEstimator } from "./batch-estimator";
import { IntervalStats } from "./interval-stats";
import { ModelStatistics } from "./model-statistics";
import type { EstimatorParams } from "@packrat/core/estimator/params";
import { Dispatcher, type BatchLayout, type BatchRecord } from "./dispatcher";
import { inferencesInFlight } from "./in-flight";
import { concreteShape, planProblem, type ServingAxes } from "@packrat/core/model-analysis/serving-axes";
import { batchLayout, declaredDims, modelAxes } from "./model-axes";
import { Instance } from "./instance";
import { DATATYPES, elementCount, oipDatatypeOf, type OipDatatype, type WireTensor } from "./tensor-types";
import type { ThreadAffinity } from "./thread-affinity";

export interface TensorMetadata {
  name: string;
  datatype: OipDatatype;
  shape: number[];
  symbolicDims: Array<string | undefined>;
}

export interface ModelMetadata {
  name: string;
  version: string;
  inputs: TensorMetadata[];
  outputs: TensorMetadata[];
  /** Each tensor's batch axis, or unbatched (set by the served model from its plan; absent: axis 0). */
  layout?: BatchLayout;
}

/** What one reconfiguration did and how long each phase took (Packrat §3.7), reported on the heartbeat. */
export type { ReconfigurationReport };

export interface ServedModelOptions {
  name: string;
  version: string;
  modelPath: string;
  plan: ServingPlan;
  topology: HostTopology;
  maxQueueRows: number;
  allowSpinning: boolean;
  faultInjection: boolean;
  restartBackoffMs: number;
  warmupIterations?: number;
  estimator?: Partial<EstimatorParams>;
  onBatch?: (model: string, record: BatchRecord) => void;
  onInstanceRestart?: (model: string) => void;
}

const FAILURES_TO_GIVE_UP = 5;
const FAILURE_WINDOW_MS = 60_000;

/** Reads input/output names, types and shapes without starting instances. */
export async function readModelMetadata(name: string, version: string, modelPath: string): Promise<ModelMetadata> {
  const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  try {
    const describe = (list: readonly ort.InferenceSession.ValueMetadata[]): TensorMetadata[] =>
      list.map((m) => {
        if (!m.isTensor) throw new Error(`${m.name} is not a tensor; only tensor inputs and outputs are served`);
        const datatype = oipDatatypeOf(m.type);
        if (!datatype) throw new Error(`${m.name} has type ${m.type}, which is not supported`);
        return {
          name: m.name,
          datatype,
          shape: m.shape.map((d) => (typeof d === "number" && d >= 0 ? d : -1)),
          symbolicDims: m.shape.map((d) => (typeof d === "string" ? d : undefined)),
        };
      });
    return { name, version, inputs: describe(session.inputMetadata), outputs: describe(session.outputMetadata) };
  } finally {
    await session.release();
  }
}

export class ServedModel {
  instances: Instance[] = [];
  readonly dispatcher: Dispatcher;
  readonly estimator: BatchEstimator;
  readonly intervalStats = new IntervalStats();
  /** Cumulative since this serving process started, by version (Triton's statistics extension). */
  readonly statistics = new ModelStatistics();
  /** Return false to unsubscribe. */
  private batchObservers = new Set<(record: BatchRecord) => boolean>();
  state: "starting" | "ready" | "failed" | "stopping" = "starting";
  failureReason?: string;
  restarts = 0;
  private failures: number[] = [];
  private warmupInputs: WireTensor[] = [];
  private nextInstanceId = 0;
  generation = 1;
  deploymentId?: string;
  lastReconfiguration?: ReconfigurationReport;
  private reconfiguring = false;

  /** Batch axes and dimensions to fix, from the model's metadata and the plan's overrides (servingAxes). */
  axes: ServingAxes;
  private axesError?: Error;

  constructor(
    readonly options: ServedModelOptions,
    public metadata: ModelMetadata,
  ) {
    try {
      this.axes = modelAxes(metadata.inputs, metadata.outputs, options.plan.batchAxes ?? {});
    } catch (error) {
      // A bad override in the plan: the model is reported failed with the reason when it starts.
      this.axesError = error as Error;
      this.axes = modelAxes(metadata.inputs, metadata.outputs);
    }
    this.metadata = { ...metadata, layout: batchLayout(this.axes) };
    this.dispatcher = new Dispatcher({
      batchSize: planBatchSize(options.plan),
      layout: this.metadata.layout,
      batchTimeoutMs: options.plan.batchTimeoutMs,
      maxQueueRows: options.maxQueueRows,
      instances: () => this.instances,
      alone: () => inferencesInFlight.alone,
      onBatch: (record) => {
        options.onBatch?.(options.name, record);
        this.intervalStats.batchExecuted(record.computeMs);
        this.statistics.of(record.version ?? this.options.version).batch(record);
        this.estimator.onBatch(record);
        for (const observer of this.batchObservers) if (!observer(record)) this.batchObservers.delete(observer);
      },
    });
    this.estimator = new BatchEstimator(options.estimator ?? {}, {
      queueDepth: () => this.dispatcher.queueDepthRows,
      currentB: () => planBatchSize(this.options.plan),
      batchTimeoutMs: () => this.options.plan.batchTimeoutMs,
    });
  }

  /**
   * A request alone in the process has come in: the model's one ready instance wakes now. Nothing when the
   * dispatcher is busy, has a queue, the request would wait for a batch, or more than one instance is ready.
   */
  headsUp(): void {
    if (this.dispatcher.busy || this.dispatcher.queueDepthRequests > 0) return;
    // A request that waits for a batch to fill would outlast the thread's short wait for it.
    if (planBatchSize(this.options.plan) > 1 && this.options.plan.batchTimeoutMs > 0) return;
    // As the dispatcher's synchronous wait: only with one ready instance (another idle one would be given the next
    // request instead, and a spinning thread would take a CPU the HTTP side needs).
    const ready = this.instances.filter((i) => i.state === "ready");
    if (ready.length === 1) ready[0]!.headsUp();
  }

  /** Per-instance core lists: the plan's own, or the allocator's on this host's topology. */
  private coreAssignments(
    plan: ServingPlan = this.options.plan,
  ): Array<{ threads: number; batch: number; coreCpus: number[][] }> {
    if (plan.instances.every((item) => item.cpus)) {
      return plan.instances.flatMap((item) =>
        item.cpus!.map((list) => {
          const cpus = parseCpuList(list);
          if (cpus.length < item.threads)
            throw new Error(`cpulist "${list}" has ${cpus.length} CPUs for ${item.threads} threads`);
          // One CPU per thread when the list is exactly t long; otherwise spread the list over t threads.
          const per = Math.floor(cpus.length / item.threads);
          return {
            threads: item.threads,
            batch: item.batch,
            coreCpus: Array.from({ length: item.threads }, (_, j) => cpus.slice(j * per, (j + 1) * per)),
          };
        }),
      );
    }
    const allocation = allocate(
      this.options.topology,
      plan.instances.map(({ count, threads, batch }) => ({ count, threads, batch })),
    );
    return allocation.instances.map((a) => ({ threads: a.threads, batch: a.batch, coreCpus: a.coreCpus }));
  }

  /** Zero-filled inputs at the plan's per-instance batch (each on its own batch axis), dimensions from the plan. */
  private warmupFor(
    batch: number,
    metadata: ModelMetadata = this.metadata,
    plan: ServingPlan = this.options.plan,
  ): WireTensor[] {
    const axes = modelAxes(metadata.inputs, metadata.outputs, plan.batchAxes ?? {});
    const problem = planProblem(axes, plan);
    if (problem) throw new Error(problem);
    return metadata.inputs.map((input, index) => {
      const shape = concreteShape(
        { name: input.name, shape: declaredDims(input) },
        axes.inputs[index]!,
        batch,
        plan.dimensions ?? {},
        axes.batchSymbol,
      );
      return {
        name: input.name,
        datatype: input.datatype,
        shape,
        buffer: new ArrayBuffer(elementCount(shape) * DATATYPES[input.datatype].bytes),
      };
    });
  }

  async start(): Promise<void> {
    if (this.axesError) throw this.axesError;
    const assignments = this.coreAssignments();
    // One at a time: an instance learns its ORT pool threads by diffing this process's threads around its
    // session creation, which concurrent creations would confuse.
    for (const a of assignments) {
      const instance = this.makeInstance(a.threads, a.batch, a.coreCpus);
      await instance.start();
      this.instances.push(instance);
    }
    this.state = "ready";
    this.estimator.start();
  }

  private makeInstance(
    threads: number,
    batch: number,
    coreCpus: number[][],
    modelPath = this.options.modelPath,
    metadata = this.metadata,
    plan = this.options.plan,
    version = this.options.version,
  ): Instance {
    this.warmupInputs = this.warmupFor(batch, metadata, plan);
    const instance = new Instance({
      id: this.nextInstanceId++,
      threads,
      batch,
      coreCpus,
      version,
      modelPath,
      warmupInputs: this.warmupInputs,
      warmupIterations: this.options.warmupIterations ?? plan.warmupIterations,
      allowSpinning: this.options.allowSpinning,
      faultInjection: this.options.faultInjection,
    });
    instance.onCrash = () => void this.recreate(instance);
    instance.aloneNow = () => inferencesInFlight.alone;
    return instance;
  }

  private async recreate(crashed: Instance): Promise<void> {
    const now = Date.now();
    this.failures = this.failures.filter((t) => now - t < FAILURE_WINDOW_MS);
    this.failures.push(now);
    if (this.failures.length >= FAILURES_TO_GIVE_UP) {
      this.state = "failed";
      this.failureReason = `${this.failures.length} instance crashes within ${FAILURE_WINDOW_MS / 1000} s`;
      return;
    }
    const delay = Math.min(10_000, this.options.restartBackoffMs * 2 ** (this.failures.length - 1));
    await new Promise((r) => setTimeout(r, delay));
    if (this.state !== "ready" || !this.instances.includes(crashed)) return; // reconfigured away meanwhile
    const { threads, batch, coreCpus, modelPath, version } = crashed.spec;
    const replacement = this.makeInstance(
      threads,
      batch,
      coreCpus,
      modelPath,
      this.metadata,
      this.options.plan,
      version,
    );
    try {
      await replacement.start();
      this.instances = this.instances.map((i) => (i === crashed ? replacement : i));
      this.restarts++;
      this.options.onInstanceRestart?.(this.options.name);
    } catch {
      await this.recreate(crashed);
    }
  }

  /**
   * Moves to a new plan (and optionally a new model file) while serving, Packrat §3.7. Instances on the same threads
   * and CPUs stay; new ones start and warm beside the old set; the dispatcher switches between two batches (the
   * batch in flight finishes on the old set); the old instances finish what they hold and stop. Requests keep
   * queueing throughout. Where new instances need CPUs that old ones hold, both run on them briefly (the overlap
   * staging): on a 2-core host a thread change always overlaps. A new set that fails to start or warm is torn down
   * and the old one keeps serving; the report says why.
   */
  async reconfigure(
    plan: ServingPlan,
    generation: number,
    newModel?: { modelPath: string; version: string; metadata: ModelMetadata },
  ): Promise<ReconfigurationReport> {
    if (this.reconfiguring) throw new Error("a reconfiguration is already in progress");
    this.reconfiguring = true;
    const t0 = performance.now();
    const phases = { start: 0, warm: 0, switch: 0, drain: 0, stop: 0, total: 0 };
    const metadata = newModel?.metadata ?? this.metadata;
    const modelPath = newModel?.modelPath ?? this.options.modelPath;
    const report: ReconfigurationReport = {
      generation,
      kind: "batch-only",
      outcome: "applied",
      started: 0,
      stopped: 0,
      kept: 0,
      overlapCpus: [],
      phasesMs: phases,
      servedBatches: 0,
    };
    const started: Instance[] = [];
    try {
      // Refused before anything starts: a batch the model cannot take, a dimension without a value.
      const problem = planProblem(modelAxes(metadata.inputs, metadata.outputs, plan.batchAxes ?? {}), plan);
      if (problem) throw new Error(problem);
      const target = this.coreAssignments(plan);
      const current = this.instances;
      // A version change replaces every instance; otherwise the allocator's diff says what stays.
      const diff = diffAllocations(
        newModel
          ? []
          : current.map((i) => ({ threads: i.spec.threads, batch: i.spec.batch, cpus: i.spec.coreCpus.flat() })),
        target.map((a) => ({ threads: a.threads, batch: a.batch, cpus: a.coreCpus.flat() })),
      );
      const stopping = newModel ? current : diff.stop.map((s) => current[s.from]!);
      const threadsBefore = new Set(current.map((i) => i.spec.threads));
      const threadsChange =
        target.some((a) => !threadsBefore.has(a.threads)) ||
        current.some((i) => !target.some((a) => a.threads === i.spec.threads));
      report.kind =
        newModel || threadsChange ? "active-passive" : diff.start.length || diff.stop.length ? "scale" : "batch-only";
      report.overlapCpus = newModel
        ? [...new Set(current.flatMap((i) => i.spec.coreCpus.flat()))]
            .filter((c) => target.some((a) => a.coreCpus.flat().includes(c)))
            .sort((a, b) => a - b)
        : diff.sharedCpus;

      // Start and warm the new instances beside the old set (one at a time: see start()).
      const tStart = performance.now();
      for (const s of diff.start) {
        const a = target[s.to]!;
        const instance = this.makeInstance(
          a.threads,
          a.batch,
          a.coreCpus,
          modelPath,
          metadata,
          plan,
          newModel?.version ?? this.options.version,
        );
        started.push(instance);
        await instance.start();
        phases.warm += instance.timeline?.warmupMs ?? 0;
      }
      phases.start = performance.now() - tStart - phases.warm;

      // Switch: one assignment, between two batches. Kept instances take their new sub-batch.
      const tSwitch = performance.now();
      const kept = diff.stay.map((s) => {
        const instance = current[s.from]!;
        instance.spec.batch = s.batchAfter;
        return instance;
      });
      this.instances = [...kept, ...started];
      // The new plan (or model) may move batch axes; the dispatcher switches between two batches with the rest.
      const axes = modelAxes(metadata.inputs, metadata.outputs, plan.batchAxes ?? {});
      const layout = batchLayout(axes);
      this.axes = axes;
      if (newModel) {
        this.metadata = { ...metadata, layout };
        this.options.modelPath = modelPath;
        this.options.version = newModel.version;
      } else {
        this.metadata = { ...this.metadata, layout };
      }
      this.options.plan = plan;
      this.dispatcher.reconfigure(planBatchSize(plan), plan.batchTimeoutMs, layout);
      this.generation = generation;
      phases.switch = performance.now() - tSwitch;

      // Drain: old instances finish the batch they hold, then stop.
      const tDrain = performance.now();
      await Promise.all(stopping.map((i) => i.idle()));
      phases.drain = performance.now() - tDrain;
      const tStop = performance.now();
      await Promise.all(stopping.map((i) => i.stop()));
      phases.stop = performance.now() - tStop;
      report.started = started.length;
      report.stopped = stopping.length;
      report.kept = kept.length;
    } catch (error) {
      await Promise.all(started.map((i) => i.stop()));
      report.outcome = "failed";
      report.error = (error as Error).message;
    } finally {
      this.reconfiguring = false;
      phases.total = performance.now() - t0;
    }
    this.lastReconfiguration = report;
    if (report.outcome === "applied") this.measureServedLatency(report);
    return report;
  }

  /** After a switch: the mean compute latency of the first 200 full batches (or 5 minutes' worth). */
  private measureServedLatency(report: ReconfigurationReport): void {
    const until = Date.now() + 5 * 60_000;
    let sum = 0;
    this.batchObservers.add((record) => {
      if (this.lastReconfiguration !== report || report.servedBatches >= 200 || Date.now() > until) return false;
      if (!record.ok || record.rows < planBatchSize(this.options.plan)) return true;
      report.servedBatches++;
      sum += record.computeMs;
      report.servedBatchLatencyMs = sum / report.servedBatches;
      return true;
    });
  }

  affinity(): Array<{ instance: number; threads: ThreadAffinity[] }> {
    return this.instances.map((i) => ({ instance: i.spec.id, threads: i.affinity() }));
  }

  status() {
    const affinity = this.affinity();
    return {
      name: this.options.name,
      version: this.options.version,
      state: this.state,
      failureReason: this.failureReason,
      generation: this.generation,
      lastReconfiguration: this.lastReconfiguration,
      estimator: {
        stable: this.estimator.state.stable,
        qTilde: this.estimator.state.qTilde,
        estimates: this.estimator.state.estimates,
        lastDecision: this.estimator.timeline.at(-1) ?? null,
      },
      batchSize: planBatchSize(this.options.plan),
      batchTimeoutMs: this.options.plan.batchTimeoutMs,
      queueRows: this.dispatcher.queueDepthRows,
      instanceRestarts: this.restarts,
      affinityOk: affinity.every((a) => a.threads.every((t) => t.ok)),
      instances: this.instances.map((i) => ({
        id: i.spec.id,
        threads: i.spec.threads,
        batch: i.spec.batch,
        state: i.state,
        cpus: i.spec.coreCpus.flat(),
        timeline: i.timeline,
        affinity: affinity.find((a) => a.instance === i.spec.id)?.threads ?? [],
      })),
    };
  }

  async stop(drainMs: number): Promise<void> {
    this.state = "stopping";
    this.estimator.stop();
    await this.dispatcher.drain(drainMs);
    await Promise.all(this.instances.map((i) => i.stop()));
  }
}
