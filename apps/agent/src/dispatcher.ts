// Packrat §3.5: per model, aggregate requests into a batch of up to B rows (or until the oldest has waited the
// batch timeout), split it across the instances by their b (largest first), and give each request its own rows.
// One batch runs at a time on the instance set: a batch's latency is its slowest instance's (the optimizer's
// makespan), so the next batch forms while this one runs. Each tensor is concatenated and split along its own
// batch axis (state shaped [layers, batch, hidden] along axis 1). A model that cannot be batched (some tensor has
// no batch axis) is served request by request: up to one request per instance at a time, none concatenated.
import { screenDeadline } from "@packrat/core/planning/admission";
import { concatRows, sliceRows } from "./tensor-rows";
import type { WireTensor } from "./tensor-types";

export class DispatchError extends Error {
  constructor(
    readonly status: 400 | 503,
    message: string,
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = "DispatchError";
  }
}

export interface RequestTiming {
  /** Waiting for the batch to fill or time out. */
  formationMs: number;
  /** Waiting, with the batch ready, for the instances to finish the previous one. */
  busyWaitMs: number;
  /** The batch's execution: the slowest instance's compute plus transfers. */
  computeMs: number;
  /** Of which the slowest instance's session.run alone (the rest is slicing and the thread hand-off). */
  runMs?: number;
  batchRows: number;
}

export interface InferResult {
  outputs: WireTensor[];
  timing: RequestTiming;
  /** The model version of the instances that computed it (a switch may happen while a request waits). */
  version?: string;
}

export interface BatchRecord {
  rows: number;
  requests: number;
  timedOut: boolean;
  formationMsMean: number;
  queueDelayMsMean: number;
  computeMs: number;
  ok: boolean;
  /** The model version of the instances that ran it (absent when it failed before any ran). */
  version?: string;
}

interface Queued {
  inputs: WireTensor[];
  rows: number;
  enqueuedAt: number;
  fault?: "throw";
  resolve: (result: InferResult) => void;
  reject: (error: Error) => void;
}

/** What the dispatcher needs of an instance (the real one is a worker thread; tests use a hand-written fake). */
export interface DispatchTarget {
  readonly spec: { id: number; batch: number; version?: string };
  readonly state: string;
  /** `alone`: the only request in flight, run on this instance alone (it may block the event loop, bounded). */
  run(inputs: WireTensor[], fault?: "throw", alone?: boolean): Promise<{ outputs: WireTensor[]; computeMs: number }>;
}

/**
 * Where each tensor's batch axis is, by name (a tensor not listed batches along axis 0), or "unbatched": requests
 * are never concatenated and each runs whole on one instance.
 */
export type BatchLayout =
  { kind: "batched"; axes: ReadonlyMap<string, number> } | { kind: "unbatched"; reason: string };

export interface DispatcherOptions {
  batchSize: number;
  /** Default: every tensor batches along axis 0. */
  layout?: BatchLayout;
  batchTimeoutMs: number;
  maxQueueRows: number;
  instances: () => readonly DispatchTarget[];
  onBatch?: (record: BatchRecord) => void;
  /** Whether the request being dispatched is the only inference request in flight in the process. */
  alone?: () => boolean;
}

const RECENT_BATCHES = 20;

/** The inputs of rows [start, start + count) of a batch. */
type Slice = (start: number, count: number) => WireTensor[];

export class Dispatcher {
  private queue: Queued[] = [];
  private queuedRows = 0;
  private executing = false;
  private executingSince = 0;
  private lastBatchEndedAt = 0;
  private timer?: NodeJS.Timeout;
  private recentBatchMs: number[] = [];
  private idleWaiters: Array<() => void> = [];
  /** Draining: partial batches go at once instead of waiting out the batch timeout. */
  private flushing = false;

  constructor(private options: DispatcherOptions) {}

  get queueDepthRows(): number {
    return this.queuedRows;
  }
  get queueDepthRequests(): number {
    return this.queue.length;
  }
  get busy(): boolean {
    return this.executing;
  }

  reconfigure(batchSize: number, batchTimeoutMs: number, layout?: BatchLayout): void {
    this.options = { ...this.options, batchSize, batchTimeoutMs, ...(layout ? { layout } : {}) };
    this.pump();
  }

  /** Admission: bounded queue, then the deadline screen (F-21) when the request names a deadline. */
  private admit(rows: number, deadlineMs: number | undefined, elapsedMs: number): void {
    if (this.queuedRows + rows > this.options.maxQueueRows) {
      throw new DispatchError(503, `queue full: ${this.queuedRows} rows queued, limit ${this.options.maxQueueRows}`, 1);
    }
    if (deadlineMs === undefined || this.recentBatchMs.length === 0) return;
    const bound = Math.max(...this.recentBatchMs);
    const residual = this.executing ? [Math.max(0, bound - (performance.now() - this.executingSince))] : [];
    const batchesAhead = Math.ceil(this.queuedRows / this.options.batchSize);
    const decision = screenDeadline({
      endToEndAllowanceMs: deadlineMs,
      elapsedMs,
      outsideWorkerBoundRemainingMs: 0,
      arrivingServiceBoundMs: bound + this.options.batchTimeoutMs,
      inServiceResidualBoundsMs: residual,
      queuedServiceBoundsMs: new Array<number>(batchesAhead).fill(bound),
      instances: 1,
    });
    if (decision.decision === "reject") {
      throw new DispatchError(
        503,
        `deadline ${deadlineMs} ms cannot be met: about ${decision.outstandingWorkMs.toFixed(1)} ms of work is ahead (${decision.reason})`,
        Math.max(1, Math.ceil(decision.outstandingWorkMs / 1000)),
      );
    }
  }

  private axisOf(name: string): number {
    const layout = this.options.layout;
    return layout?.kind === "batched" ? (layout.axes.get(name) ?? 0) : 0;
  }

  private get unbatched(): boolean {
    return this.options.layout?.kind === "unbatched";
  }

  /** A request's rows: its size along the batch axis (1 for an unbatched model, whose requests run whole). */
  private rowsOf(inputs: readonly WireTensor[]): number {
    if (this.unbatched) return 1;
    let rows: number | undefined;
    let first = "";
    for (const t of inputs) {
      const axis = this.axisOf(t.name);
      const n = t.shape[axis];
      if (n === undefined)
        throw new DispatchError(400, `input ${t.name}: shape [${t.shape}] has no dimension ${axis}, its batch axis`);
      if (rows !== undefined && n !== rows)
        throw new DispatchError(
          400,
          `inputs disagree on the batch size: ${first} has ${rows}, input ${t.name} dimension ${axis} is ${n}`,
        );
      if (rows === undefined) {
        rows = n;
        first = `input ${t.name} dimension ${axis}`;
      }
    }
    return rows ?? 0;
  }

  /**
   * Whether two requests may share a batch: the same inputs, datatypes and every dimension but the batch axis
   * (compared in place: no signature string per request). An unbatched model's requests never concatenate.
   */
  private batchable(a: readonly WireTensor[], b: readonly WireTensor[]): boolean {
    if (this.unbatched) return true;
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) {
      const x = a[i]!;
      const y = b[i]!;
      if (x.name !== y.name || x.datatype !== y.datatype || x.shape.length !== y.shape.length) return false;
      const axis = this.axisOf(x.name);
      for (let d = 0; d < x.shape.length; d++) if (d !== axis && x.shape[d] !== y.shape[d]) return false;
    }
    return true;
  }

  infer(
    inputs: WireTensor[],
    options: { deadlineMs?: number; elapsedMs?: number; fault?: "throw" } = {},
  ): Promise<InferResult> {
    const rows = this.rowsOf(inputs);
    this.admit(rows, options.deadlineMs, options.elapsedMs ?? 0);
    // The fast path: nothing queued or running, and nothing to wait for (it fills the batch, or there is no batch
    // timeout): straight to the instances, no queue and no timer.
    if (
      !this.executing &&
      this.queue.length === 0 &&
      (rows >= this.options.batchSize || this.options.batchTimeoutMs <= 0 || this.flushing)
    ) {
      return new Promise<InferResult>((resolve, reject) => {
        const now = performance.now();
        const request: Queued = { inputs, rows, enqueuedAt: now, fault: options.fault, resolve, reject };
        void this.execute([request], rows, now, rows < this.options.batchSize);
      });
    }
    return new Promise<InferResult>((resolve, reject) => {
      this.queue.push({
        inputs,
        rows,
        enqueuedAt: performance.now(),
        fault: options.fault,
        resolve,
        reject,
      });
      this.queuedRows += rows;
      this.pump();
    });
  }

  /** The next batch from the queue head: requests batchable with the head, in order, up to B rows. */
  private nextGroup(): { group: Queued[]; rows: number } {
    const head = this.queue[0]!;
    if (head.rows >= this.options.batchSize) return { group: [head], rows: head.rows };
    const group = [head];
    let rows = head.rows;
    for (let i = 1; i < this.queue.length && rows < this.options.batchSize; i++) {
      const candidate = this.queue[i]!;
      if (!this.batchable(candidate.inputs, head.inputs)) continue;
      if (rows + candidate.rows > this.options.batchSize) break; // a request's rows never span two batches
      group.push(candidate);
      rows += candidate.rows;
    }
    return { group, rows };
  }

  private pump(): void {
    if (this.executing || this.queue.length === 0) return;
    const { group, rows } = this.nextGroup();
    const now = performance.now();
    const full = rows >= this.options.batchSize;
    const waited = now - group[0]!.enqueuedAt;
    if (!full && !this.flushing && waited < this.options.batchTimeoutMs) {
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.pump(), this.options.batchTimeoutMs - waited);
      return;
    }
    clearTimeout(this.timer);
    const members = new Set(group);
    this.queue = this.queue.filter((q) => !members.has(q));
    this.queuedRows -= rows;
    // When did this batch become eligible? When its last member filled it, or when the head timed out.
    const eligibleAt = Math.min(
      now,
      full ? group[group.length - 1]!.enqueuedAt : group[0]!.enqueuedAt + this.options.batchTimeoutMs,
    );
    void this.execute(group, rows, eligibleAt, !full);
  }

  private async execute(group: Queued[], rows: number, eligibleAt: number, timedOut: boolean): Promise<void> {
    this.executing = true;
    const dispatchedAt = performance.now();
    this.executingSince = dispatchedAt;
    let ok = true;
    let batchVersion: string | undefined;
    try {
      const fault = group.find((q) => q.fault)?.fault;
      // Blocking the event loop on the answer holds up nothing only when no other instance could take a request
      // arriving meanwhile: one request, alone in the process, on a model with one ready instance.
      const alone = group.length === 1 && (this.options.alone?.() ?? false) && this.readyInstances().length === 1;
      const { perRequest, version, runMs } = this.unbatched
        ? await this.runWhole(
            group.map((q) => q.inputs),
            fault,
            alone,
          )
        : await this.runBatched(group, rows, fault, alone);
      batchVersion = version;
      const computeMs = performance.now() - dispatchedAt;
      this.recentBatchMs.push(computeMs);
      if (this.recentBatchMs.length > RECENT_BATCHES) this.recentBatchMs.shift();
      group.forEach((request, index) => {
        // Busy wait: only while the previous batch still held the instances after this one was eligible; any
        // other delay between enqueue and dispatch (filling, the timer) is formation.
        const busyWaitMs = Math.max(
          0,
          Math.min(dispatchedAt, this.lastBatchEndedAt) - Math.max(eligibleAt, request.enqueuedAt),
        );
        const timing: RequestTiming = {
          formationMs: dispatchedAt - request.enqueuedAt - busyWaitMs,
          busyWaitMs,
          computeMs,
          ...(runMs !== undefined ? { runMs } : {}),
          batchRows: rows,
        };
        request.resolve({ outputs: perRequest[index]!, timing, version });
      });
    } catch (error) {
      ok = false;
      const failure = error instanceof DispatchError ? error : new DispatchError(503, (error as Error).message, 1);
      for (const request of group) request.reject(failure);
    } finally {
      this.executing = false;
      this.lastBatchEndedAt = performance.now();
      const formation = group.map((q) => Math.max(0, eligibleAt - q.enqueuedAt));
      const delay = group.map((q) => dispatchedAt - q.enqueuedAt);
      this.options.onBatch?.({
        rows,
        requests: group.length,
        timedOut,
        ok,
        formationMsMean: formation.reduce((a, b) => a + b, 0) / group.length,
        queueDelayMsMean: delay.reduce((a, b) => a + b, 0) / group.length,
        computeMs: performance.now() - dispatchedAt,
        ...(batchVersion !== undefined ? { version: batchVersion } : {}),
      });
      this.pump();
      if (!this.executing && this.queue.length === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  private readyInstances(): DispatchTarget[] {
    const ready = this.options
      .instances()
      .filter((i) => i.state === "ready")
      .sort((a, b) => b.spec.batch - a.spec.batch || a.spec.id - b.spec.id);
    if (ready.length === 0) throw new DispatchError(503, "no instance is ready", 1);
    return ready;
  }

  /**
   * Concatenates the group along each input's batch axis, runs it, and gives each request its rows back. Where an
   * instance's slice is exactly one request's rows (instances of b = 1, or a request that fills its instance), that
   * slice is the request's own tensors and its outputs go back to it as they came: nothing concatenated or sliced.
   */
  private async runBatched(
    group: readonly Queued[],
    rows: number,
    fault?: "throw",
    alone = false,
  ): Promise<{ perRequest: WireTensor[][]; version?: string; runMs?: number }> {
    const byStart = new Map<number, Queued>();
    let at = 0;
    for (const request of group) {
      byStart.set(at, request);
      at += request.rows;
    }
    // Every cut on a request's own rows: each instance gets that request's tensors. Otherwise the batch is
    // concatenated and every cut sliced from it, as it always was (never a mix: a large slice, once sent, is moved).
    const slicer = (cuts: ReadonlyArray<{ start: number; count: number }>): Slice => {
      if (cuts.every((c) => byStart.get(c.start)?.rows === c.count)) return (start) => byStart.get(start)!.inputs;
      const batch = group[0]!.inputs.map((t, i) =>
        concatRows(
          t.name,
          group.map((q) => q.inputs[i]!),
          this.axisOf(t.name),
        ),
      );
      return (start, count) => batch.map((t) => sliceRows(t, start, count, this.axisOf(t.name)));
    };
    const { pieces, version, runMs } = await this.runOnInstances(slicer, rows, fault, alone);
    const aligned = pieces.every(
      (p) => byStart.get(p.start)?.rows === p.count && p.outputs.every((o) => o.shape[this.axisOf(o.name)] === p.count),
    );
    if (aligned) {
      const own = new Map(pieces.map((p) => [p.start, p.outputs]));
      let offset = 0;
      const perRequest = group.map((request) => {
        const mine = own.get(offset)!;
        offset += request.rows;
        return mine;
      });
      return { perRequest, version, runMs };
    }
    const outputs = this.joined(pieces, rows);
    let offset = 0;
    const perRequest = group.map((request) => {
      const mine = outputs.map((o) => sliceRows(o, offset, request.rows, this.axisOf(o.name)));
      offset += request.rows;
      return mine;
    });
    return { perRequest, version, runMs };
  }

  /** The instances' outputs as the batch's, each concatenated along its batch axis, which must hold `rows`. */
  private joined(pieces: ReadonlyArray<{ outputs: WireTensor[] }>, rows: number): WireTensor[] {
    const outputNames = pieces[0]!.outputs.map((o) => o.name);
    const outputs = outputNames.map((name, i) =>
      concatRows(
        name,
        pieces.map((p) => p.outputs[i]!),
        this.axisOf(name),
      ),
    );
    for (const output of outputs) {
      const axis = this.axisOf(output.name);
      if (output.shape[axis] !== rows)
        throw new DispatchError(
          503,
          `output ${output.name} has ${output.shape[axis]} rows along dimension ${axis} for a batch of ${rows}: the model's outputs are not batched along that dimension`,
        );
    }
    return outputs;
  }

  /** Unbatched model: each request runs whole on one instance, up to one per instance at a time. */
  private async runWhole(
    requests: readonly WireTensor[][],
    fault?: "throw",
    alone = false,
  ): Promise<{ perRequest: WireTensor[][]; version?: string; runMs?: number }> {
    const ready = this.readyInstances();
    let runMs = 0;
    const perRequest: WireTensor[][] = new Array<WireTensor[]>(requests.length);
    for (let start = 0; start < requests.length; start += ready.length) {
      await Promise.all(
        ready.slice(0, requests.length - start).map((instance, k) => {
          const index = start + k;
          const single = alone && requests.length === 1;
          return instance.run(requests[index]!, index === 0 ? fault : undefined, single).then((r) => {
            perRequest[index] = r.outputs;
            runMs = Math.max(runMs, r.computeMs);
          });
        }),
      );
    }
    return { perRequest, version: ready[0]!.spec.version, runMs };
  }

  /**
   * Splits `rows` across the ready instances, each taking up to its b (largest b first), in waves until every row
   * is assigned (more than one wave only for a request larger than B, or while an instance is being recreated).
   * `slicer`, given every cut, says how to get the inputs of rows [start, start + count); the pieces come back in
   * row order.
   */
  private async runOnInstances(
    slicer: (cuts: ReadonlyArray<{ start: number; count: number }>) => Slice,
    rows: number,
    fault?: "throw",
    alone = false,
  ): Promise<{
    pieces: Array<{ start: number; count: number; outputs: WireTensor[] }>;
    version?: string;
    runMs: number;
  }> {
    const ready = this.readyInstances();
    // One slice on one instance: blocking on it holds up nothing else. Several: each answer is read as it comes.
    const single = alone && rows <= ready[0]!.spec.batch;
    const waves: Array<Array<{ instance: DispatchTarget; start: number; count: number }>> = [];
    for (let start = 0; start < rows;) {
      const wave: (typeof waves)[number] = [];
      for (const instance of ready) {
        if (start >= rows) break;
        const count = Math.min(instance.spec.batch, rows - start);
        wave.push({ instance, start, count });
        start += count;
      }
      waves.push(wave);
    }
    const slice = slicer(waves.flat());
    let runMs = 0;
    const pieces: Array<{ start: number; count: number; outputs: WireTensor[] }> = [];
    let faultSent = false;
    for (const wave of waves) {
      // A wave's slices are cut as it goes, not all at once: a request larger than B is never held twice whole.
      await Promise.all(
        wave.map(({ instance, start, count }) => {
          const injected: "throw" | undefined = fault && !faultSent ? fault : undefined;
          faultSent ||= !!injected;
          return instance.run(slice(start, count), injected, single).then((r) => {
            pieces.push({ start, count, outputs: r.outputs });
            runMs = Math.max(runMs, r.computeMs);
          });
        }),
      );
    }
    pieces.sort((a, b) => a.start - b.start);
    return { pieces, version: ready[0]!.spec.version, runMs };
  }

  /** Resolves when nothing is queued or running, or rejects what is left after `timeoutMs`. */
  async drain(timeoutMs: number): Promise<void> {
    if (!this.executing && this.queue.length === 0) return;
    this.flushing = true;
    this.pump();
    await Promise.race([
      new Promise<void>((resolve) => this.idleWaiters.push(resolve)),
      new Promise<void>((resolve) => setTimeout(resolve, timeoutMs).unref()),
    ]);
    for (const request of this.queue.splice(0)) request.reject(new DispatchError(503, "agent is shutting down", 1));
    this.queuedRows = 0;
  }
}
