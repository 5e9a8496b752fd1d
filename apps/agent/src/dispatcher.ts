// Packrat §3.5: per model, aggregate requests into a batch of up to B rows (or until the oldest has waited the
// batch timeout), split it across the instances by their b (largest first), and give each request its own rows.
// One batch runs at a time on the instance set: a batch's latency is its slowest instance's (the optimizer's
// makespan), so the next batch forms while this one runs.
import { screenDeadline } from "../../../src/core/planning/admission";
import { concatRows, sliceRows } from "./tensor-rows";
import type { WireTensor } from "./tensor-types";

export class DispatchError extends Error {
  constructor(readonly status: 400 | 503, message: string, readonly retryAfterS?: number) { super(message); this.name = "DispatchError"; }
}

export interface RequestTiming {
  /** Waiting for the batch to fill or time out. */
  formationMs: number;
  /** Waiting, with the batch ready, for the instances to finish the previous one. */
  busyWaitMs: number;
  /** The batch's execution: the slowest instance's compute plus transfers. */
  computeMs: number;
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
}

interface Queued {
  inputs: WireTensor[];
  rows: number;
  signature: string;
  enqueuedAt: number;
  fault?: "throw";
  resolve: (result: InferResult) => void;
  reject: (error: Error) => void;
}

/** What the dispatcher needs of an instance (the real one is a worker thread; tests use a hand-written fake). */
export interface DispatchTarget {
  readonly spec: { id: number; batch: number; version?: string };
  readonly state: string;
  run(inputs: WireTensor[], fault?: "throw"): Promise<{ outputs: WireTensor[]; computeMs: number }>;
}

export interface DispatcherOptions {
  batchSize: number;
  batchTimeoutMs: number;
  maxQueueRows: number;
  instances: () => readonly DispatchTarget[];
  onBatch?: (record: BatchRecord) => void;
}

const RECENT_BATCHES = 20;

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

  get queueDepthRows(): number { return this.queuedRows; }
  get queueDepthRequests(): number { return this.queue.length; }
  get busy(): boolean { return this.executing; }

  reconfigure(batchSize: number, batchTimeoutMs: number): void {
    this.options = { ...this.options, batchSize, batchTimeoutMs };
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
      throw new DispatchError(503, `deadline ${deadlineMs} ms cannot be met: about ${decision.outstandingWorkMs.toFixed(1)} ms of work is ahead (${decision.reason})`,
        Math.max(1, Math.ceil(decision.outstandingWorkMs / 1000)));
    }
  }

  infer(inputs: WireTensor[], options: { deadlineMs?: number; elapsedMs?: number; fault?: "throw" } = {}): Promise<InferResult> {
    const rows = inputs[0]!.shape[0]!;
    this.admit(rows, options.deadlineMs, options.elapsedMs ?? 0);
    const signature = inputs.map((t) => `${t.name}:${t.datatype}:${t.shape.slice(1).join("x")}`).join("|");
    return new Promise<InferResult>((resolve, reject) => {
      this.queue.push({ inputs, rows, signature, enqueuedAt: performance.now(), fault: options.fault, resolve, reject });
      this.queuedRows += rows;
      this.pump();
    });
  }

  /** The next batch from the queue head: requests of the head's signature, in order, up to B rows. */
  private nextGroup(): { group: Queued[]; rows: number } {
    const head = this.queue[0]!;
    if (head.rows >= this.options.batchSize) return { group: [head], rows: head.rows };
    const group = [head];
    let rows = head.rows;
    for (let i = 1; i < this.queue.length && rows < this.options.batchSize; i++) {
      const candidate = this.queue[i]!;
      if (candidate.signature !== head.signature) continue;
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
    const eligibleAt = Math.min(now, full ? group[group.length - 1]!.enqueuedAt : group[0]!.enqueuedAt + this.options.batchTimeoutMs);
    void this.execute(group, rows, eligibleAt, !full);
  }

  private async execute(group: Queued[], rows: number, eligibleAt: number, timedOut: boolean): Promise<void> {
    this.executing = true;
    const dispatchedAt = performance.now();
    this.executingSince = dispatchedAt;
    let ok = true;
    try {
      const names = group[0]!.inputs.map((t) => t.name);
      const batch = names.map((name, i) => concatRows(name, group.map((q) => q.inputs[i]!)));
      const fault = group.find((q) => q.fault)?.fault;
      const { outputs, version } = await this.runOnInstances(batch, rows, fault);
      const computeMs = performance.now() - dispatchedAt;
      this.recentBatchMs.push(computeMs);
      if (this.recentBatchMs.length > RECENT_BATCHES) this.recentBatchMs.shift();
      let offset = 0;
      for (const request of group) {
        // Busy wait: only while the previous batch still held the instances after this one was eligible; any
        // other delay between enqueue and dispatch (filling, the timer) is formation.
        const busyWaitMs = Math.max(0, Math.min(dispatchedAt, this.lastBatchEndedAt) - Math.max(eligibleAt, request.enqueuedAt));
        const timing: RequestTiming = { formationMs: dispatchedAt - request.enqueuedAt - busyWaitMs, busyWaitMs, computeMs, batchRows: rows };
        request.resolve({ outputs: outputs.map((o) => sliceRows(o, offset, request.rows)), timing, version });
        offset += request.rows;
      }
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
        rows, requests: group.length, timedOut, ok,
        formationMsMean: formation.reduce((a, b) => a + b, 0) / group.length,
        queueDelayMsMean: delay.reduce((a, b) => a + b, 0) / group.length,
        computeMs: performance.now() - dispatchedAt,
      });
      this.pump();
      if (!this.executing && this.queue.length === 0) for (const wake of this.idleWaiters.splice(0)) wake();
    }
  }

  /**
   * Splits `rows` across the ready instances, each taking up to its b (largest b first), in waves until every row
   * is assigned (more than one wave only for a request larger than B, or while an instance is being recreated).
   */
  private async runOnInstances(batch: WireTensor[], rows: number, fault?: "throw"): Promise<{ outputs: WireTensor[]; version?: string }> {
    const ready = this.options.instances().filter((i) => i.state === "ready").sort((a, b) => b.spec.batch - a.spec.batch || a.spec.id - b.spec.id);
    if (ready.length === 0) throw new DispatchError(503, "no instance is ready", 1);
    const pieces: Array<{ start: number; outputs: WireTensor[] }> = [];
    let start = 0;
    let faultSent = false;
    while (start < rows) {
      const wave: Array<Promise<void>> = [];
      for (const instance of ready) {
        if (start >= rows) break;
        const count = Math.min(instance.spec.batch, rows - start);
        const slice = batch.map((t) => sliceRows(t, start, count));
        const at = start;
        const injected: "throw" | undefined = fault && !faultSent ? fault : undefined;
        faultSent ||= !!injected;
        wave.push(instance.run(slice, injected).then((r) => { pieces.push({ start: at, outputs: r.outputs }); }));
        start += count;
      }
      await Promise.all(wave);
    }
    pieces.sort((a, b) => a.start - b.start);
    const outputNames = pieces[0]!.outputs.map((o) => o.name);
    const outputs = outputNames.map((name, i) => concatRows(name, pieces.map((p) => p.outputs[i]!)));
    for (const output of outputs) {
      if (output.shape[0] !== rows) throw new DispatchError(503, `output ${output.name} has ${output.shape[0]} rows for a batch of ${rows}: the model's outputs are not batched along dimension 0`);
    }
    return { outputs, version: ready[0]!.spec.version };
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
