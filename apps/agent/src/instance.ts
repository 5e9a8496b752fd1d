// The dispatcher's handle on one instance thread: start it, run a slice of a batch on it, notice when it dies.
// Slices go over the slab hand-off (slab-hand-off.ts), one at a time; a dead thread fails only what it holds.
import { MessageChannel, receiveMessageOnPort, Worker, type MessagePort } from "node:worker_threads";
import type { InstanceWorkerData, MovedMessage, SlabMessage, WorkerMessage } from "./instance-worker";
import {
  answeredWithin,
  computeMsOf,
  createControl,
  DONE,
  errorOf,
  FLAG_FAULT,
  FLAG_MOVED,
  FLAG_NEW_SLAB,
  flagsOf,
  grownSlabBytes,
  handOver,
  headsUp,
  IDLE,
  lateWaitPlan,
  MOVE_BYTES,
  readTensors,
  REQUEST,
  setFlags,
  slabBytes,
  SpinGate,
  STATE,
  syncWaitBoundMs,
  whenAnswered,
  writeTensors,
  type SlabTensor,
} from "./slab-hand-off";
import { elementCount, DATATYPES, type WireTensor } from "./tensor-types";
import { verifyInstanceAffinity, type ThreadAffinity } from "./thread-affinity";

/** How often the watchdog looks for an answer nobody was woken for. */
const WATCHDOG_MS = 100;
/** The weight of the newest session.run time in the recent average (a few runs' memory). */
const RUN_MS_WEIGHT = 0.25;

export class InstanceCrashedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InstanceCrashedError";
  }
}

export interface InstanceSpec extends Omit<InstanceWorkerData, "threads" | "control" | "inputSlab" | "slabPort"> {
  id: number;
  threads: number;
  batch: number;
  /** The model version this instance runs: a response names the version that computed it. */
  version: string;
}

export interface InstanceTimeline {
  sessionCreateMs: number;
  warmupMs: number;
  readyAtMs: number;
}

type RunResult = { outputs: WireTensor[]; computeMs: number };

interface Pending {
  inputs: WireTensor[];
  fault?: "throw";
  /** The request is alone in the process: the event loop may block on its answer (bounded). */
  alone?: boolean;
  resolve: (r: RunResult) => void;
  reject: (e: Error) => void;
}

export class Instance {
  private worker?: Worker;
  /** The slice on the instance thread now, and those waiting for it (the dispatcher sends one at a time). */
  private current?: Pending;
  private waiting: Pending[] = [];
  private pendingPromises = new Set<Promise<unknown>>();
  private control = createControl();
  private inputSlab: SharedArrayBuffer;
  private outputSlab?: SharedArrayBuffer;
  private slabPort?: MessagePort;
  private inputIndex = new Map<string, number>();
  private tid = 0;
  private poolTids: number[] = [];
  busy = false;
  state: "starting" | "ready" | "crashed" | "stopped" = "starting";
  timeline?: InstanceTimeline;
  outputNames: string[] = [];
  onCrash?: (error: Error) => void;
  /**
   * A libuv timer beside the Atomics wake-up. Both the wake-up and waitAsync's own timeout reach the event loop as V8
   * platform tasks; once, under load, an answer was never read. This timer does not go through that path, so an
   * answer already in the control block is read within WATCHDOG_MS whatever happened to its wake-up.
   */
  private watchdog?: NodeJS.Timeout;
  /** session.run's recent time on this instance (a moving average), which bounds a synchronous wait. */
  private recentRunMs?: number;
  /** Whether a synchronous wait may spin now (not right after one the answer outlasted). */
  private spinGate = new SpinGate();
  /** The timer that brings the event loop back for the end of a long run alone (lateWaitPlan). */
  private lateWait?: NodeJS.Timeout;
  /** Whether the request running now is still the only one in the process (set by the served model). */
  aloneNow?: () => boolean;

  constructor(readonly spec: InstanceSpec) {
    // Sized for the warm-up's inputs (the plan's batch); a bigger slice brings a bigger slab.
    const warm = spec.warmupInputs.reduce((sum, t) => sum + t.buffer.byteLength + 8, 0);
    this.inputSlab = new SharedArrayBuffer(grownSlabBytes(0, warm));
  }

  start(): Promise<void> {
    const { id: _id, batch: _batch, version: _version, ...rest } = this.spec;
    const { port1, port2 } = new MessageChannel();
    this.slabPort = port1;
    const data: InstanceWorkerData = {
      ...rest,
      control: this.control.buffer as SharedArrayBuffer,
      inputSlab: this.inputSlab,
      slabPort: port2,
    };
    const worker = new Worker(new URL("./instance-worker-entry.mjs", import.meta.url), {
      workerData: data,
      transferList: [port2],
    });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.on("message", (message: WorkerMessage) => {
        switch (message.kind) {
          case "ready":
            this.tid = message.tid;
            this.poolTids = message.poolTids;
            this.outputNames = message.outputNames;
            this.outputSlab = message.outputSlab;
            this.inputIndex = new Map(message.inputNames.map((name, index) => [name, index]));
            this.timeline = {
              sessionCreateMs: message.sessionCreateMs,
              warmupMs: message.warmupMs,
              readyAtMs: Date.now(),
            };
            this.state = "ready";
            this.watchdog = setInterval(() => this.readLostAnswer(), WATCHDOG_MS);
            this.watchdog.unref();
            resolve();
            break;
          case "init-error":
            this.state = "crashed";
            void worker.terminate();
            reject(new Error(`instance ${this.spec.id} failed to start: ${message.message}`));
            break;
        }
      });
      worker.on("error", (error) => this.crashed(error, reject));
      worker.on("exit", (code) => {
        if (this.state !== "stopped") this.crashed(new Error(`instance thread exited with code ${code}`), reject);
      });
    });
  }

  private crashed(error: Error, rejectStart: (e: Error) => void): void {
    if (this.state === "crashed" || this.state === "stopped") return;
    const wasStarting = this.state === "starting";
    this.state = "crashed";
    clearInterval(this.watchdog);
    const failure = new InstanceCrashedError(`instance ${this.spec.id} crashed: ${error.message}`);
    this.failAll(failure);
    if (wasStarting) rejectStart(failure);
    else this.onCrash?.(failure);
  }

  /**
   * Runs a slice. `alone`: nothing else is in flight in the process, so once handed over the event loop may wait
   * for the answer synchronously, within a bound from this instance's recent run time (slab-hand-off.ts).
   */
  run(inputs: WireTensor[], fault?: "throw", alone?: boolean): Promise<RunResult> {
    if (this.state !== "ready" || !this.worker)
      return Promise.reject(new InstanceCrashedError(`instance ${this.spec.id} is ${this.state}`));
    const promise = new Promise<RunResult>((resolve, reject) => {
      const pending: Pending = { inputs, fault, alone, resolve, reject };
      if (this.current) this.waiting.push(pending);
      else this.send(pending);
    });
    this.pendingPromises.add(promise);
    void promise.finally(() => this.pendingPromises.delete(promise)).catch(() => {});
    return promise;
  }

  /** Writes a slice into the input slab and hands it to the instance thread; the answer comes in `answered`. */
  private send(pending: Pending): void {
    this.current = pending;
    try {
      const tensors: SlabTensor[] = pending.inputs.map((t) => {
        const index = this.inputIndex.get(t.name);
        if (index === undefined) throw new Error(`the model has no input named ${t.name}`);
        return { index, datatype: t.datatype, shape: t.shape, bytes: new Uint8Array(t.buffer) };
      });
      let flags = pending.fault ? FLAG_FAULT : 0;
      const needed = slabBytes(tensors);
      if (needed >= MOVE_BYTES) {
        // Large: moved, not copied twice; the caller's buffers are detached (the dispatcher is done with them).
        const buffers = pending.inputs.map((t) => t.buffer);
        writeTensors(this.control, undefined, tensors);
        this.slabPort!.postMessage({ buffers } satisfies MovedMessage, buffers);
        flags |= FLAG_MOVED;
      } else {
        if (needed > this.inputSlab.byteLength) {
          this.inputSlab = new SharedArrayBuffer(grownSlabBytes(this.inputSlab.byteLength, needed));
          this.slabPort!.postMessage({ slab: this.inputSlab } satisfies SlabMessage);
          flags |= FLAG_NEW_SLAB;
        }
        writeTensors(this.control, this.inputSlab, tensors);
      }
      setFlags(this.control, flags);
    } catch (error) {
      this.current = undefined;
      pending.reject(error as Error);
      this.next();
      return;
    }
    handOver(this.control, REQUEST);
    const bound = pending.alone ? syncWaitBoundMs(this.recentRunMs) : undefined;
    // Alone: the state word read in a loop for twice the run time, then a sleep for the margin (answeredWithin).
    // Bounded: a crashed, stuck or suddenly slow instance costs at most the bound, then the asynchronous wait (and
    // the exit event, the watchdog) take over as for any other request.
    if (bound !== undefined) {
      const spinMs = this.spinGate.spinMs(bound);
      const started = performance.now();
      const answered = answeredWithin(this.control, bound, spinMs);
      this.spinGate.record(spinMs, performance.now() - started, answered);
      if (answered && Atomics.load(this.control, STATE) === DONE) return this.answered(pending);
    } else if (pending.alone) this.scheduleLateWait(pending);
    this.awaitAnswer(pending);
  }

  /**
   * A long run alone: besides the asynchronous wait, the event loop comes back shortly before the answer is due
   * and spins on the state word for it (bounded; then the asynchronous wait goes on as before). Not when another
   * request has come in meanwhile: the event loop has work then.
   */
  private scheduleLateWait(pending: Pending): void {
    const plan = lateWaitPlan(this.recentRunMs);
    if (!plan) return;
    clearTimeout(this.lateWait);
    this.lateWait = setTimeout(() => {
      this.lateWait = undefined;
      if (this.current !== pending || this.state !== "ready" || !(this.aloneNow?.() ?? true)) return;
      if (answeredWithin(this.control, plan.boundMs, plan.boundMs) && Atomics.load(this.control, STATE) === DONE)
        this.answered(pending);
    }, plan.afterMs);
    this.lateWait.unref();
  }

  /** A request alone is on its way to this idle instance: its thread wakes now, while the request is parsed. */
  headsUp(): void {
    if (this.state === "ready" && !this.current) headsUp(this.control);
  }

  /** The bound a synchronous wait on this instance would have now (undefined: it would wait asynchronously). */
  get syncWaitBoundMs(): number | undefined {
    return syncWaitBoundMs(this.recentRunMs);
  }

  private awaitAnswer(pending: Pending): void {
    const waiting = whenAnswered(this.control);
    if (!waiting) return this.answered(pending);
    void waiting.then(() => {
      // A crash or stop already failed it (and woke this wait): the thread is gone, nothing to read.
      if (this.current !== pending) return;
      if (Atomics.load(this.control, STATE) === DONE) this.answered(pending);
      else this.awaitAnswer(pending);
    });
  }

  /** The watchdog's check: an answer is there, but no wake-up has read it. */
  private readLostAnswer(): void {
    const pending = this.current;
    if (pending && Atomics.load(this.control, STATE) === DONE) this.answered(pending);
  }

  private answered(pending: Pending): void {
    const control = this.control;
    this.current = undefined;
    clearTimeout(this.lateWait);
    let result: RunResult | undefined;
    let failure: Error | undefined;
    try {
      if (flagsOf(control) & FLAG_NEW_SLAB)
        this.outputSlab = (receiveMessageOnPort(this.slabPort!)!.message as SlabMessage).slab;
      const message = errorOf(control);
      if (message !== undefined) failure = new Error(message);
      else
        result = {
          // Copied out of the slab: the next slice overwrites it, and the tensor goes on to the HTTP response.
          outputs: readTensors(control, this.outputSlab!).map((t) => {
            const buffer = new ArrayBuffer(elementCount(t.shape) * DATATYPES[t.datatype].bytes);
            new Uint8Array(buffer).set(t.bytes);
            return { name: this.outputNames[t.index]!, datatype: t.datatype, shape: t.shape, buffer };
          }),
          computeMs: computeMsOf(control),
        };
      if (result) {
        const ms = result.computeMs;
        this.recentRunMs =
          this.recentRunMs === undefined ? ms : this.recentRunMs + RUN_MS_WEIGHT * (ms - this.recentRunMs);
      }
    } catch (error) {
      failure = error as Error;
    }
    Atomics.store(control, STATE, IDLE);
    if (failure) pending.reject(failure);
    else pending.resolve(result!);
    this.next();
  }

  private next(): void {
    const pending = this.waiting.shift();
    if (pending) this.send(pending);
  }

  /** Fails what this instance holds; a wait for the dead thread's answer is woken so nothing lingers. */
  private failAll(failure: Error): void {
    const held = [...(this.current ? [this.current] : []), ...this.waiting.splice(0)];
    this.current = undefined;
    clearTimeout(this.lateWait);
    for (const p of held) p.reject(failure);
    Atomics.notify(this.control, STATE);
  }

  /** Resolves once nothing is running on this instance (a removed instance finishes what it holds first). */
  async idle(): Promise<void> {
    while (this.pendingPromises.size > 0) await Promise.allSettled([...this.pendingPromises]);
  }

  affinity(): ThreadAffinity[] {
    if (this.state !== "ready") return [];
    return verifyInstanceAffinity(this.tid, this.poolTids, this.spec.coreCpus);
  }

  async stop(): Promise<void> {
    this.state = "stopped";
    clearInterval(this.watchdog);
    this.failAll(new InstanceCrashedError(`instance ${this.spec.id} stopped`));
    await this.worker?.terminate();
    this.slabPort?.close();
  }
}
