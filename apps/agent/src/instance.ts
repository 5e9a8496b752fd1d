// The dispatcher's handle on one instance thread: start it, run a slice of a batch on it, notice when it dies.
import { Worker } from "node:worker_threads";
import type { InstanceWorkerData, WorkerMessage, WorkerRequest } from "./instance-worker";
import type { WireTensor } from "./tensor-types";
import { verifyInstanceAffinity, type ThreadAffinity } from "./thread-affinity";

export class InstanceCrashedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InstanceCrashedError";
  }
}

export interface InstanceSpec extends Omit<InstanceWorkerData, "threads"> {
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

interface Pending {
  resolve: (r: { outputs: WireTensor[]; computeMs: number }) => void;
  reject: (e: Error) => void;
}

export class Instance {
  private worker?: Worker;
  private seq = 0;
  private pending = new Map<number, Pending>();
  private pendingPromises = new Set<Promise<unknown>>();
  private tid = 0;
  private poolTids: number[] = [];
  busy = false;
  state: "starting" | "ready" | "crashed" | "stopped" = "starting";
  timeline?: InstanceTimeline;
  outputNames: string[] = [];
  onCrash?: (error: Error) => void;

  constructor(readonly spec: InstanceSpec) {}

  start(): Promise<void> {
    const { id: _id, batch: _batch, version: _version, ...data } = this.spec;
    const worker = new Worker(new URL("./instance-worker-entry.mjs", import.meta.url), {
      workerData: data satisfies InstanceWorkerData,
    });
    this.worker = worker;
    return new Promise<void>((resolve, reject) => {
      worker.on("message", (message: WorkerMessage) => {
        switch (message.kind) {
          case "ready":
            this.tid = message.tid;
            this.poolTids = message.poolTids;
            this.outputNames = message.outputNames;
            this.timeline = {
              sessionCreateMs: message.sessionCreateMs,
              warmupMs: message.warmupMs,
              readyAtMs: Date.now(),
            };
            this.state = "ready";
            resolve();
            break;
          case "init-error":
            this.state = "crashed";
            void worker.terminate();
            reject(new Error(`instance ${this.spec.id} failed to start: ${message.message}`));
            break;
          case "result": {
            const p = this.pending.get(message.seq);
            this.pending.delete(message.seq);
            p?.resolve({ outputs: message.outputs, computeMs: message.computeMs });
            break;
          }
          case "run-error": {
            const p = this.pending.get(message.seq);
            this.pending.delete(message.seq);
            p?.reject(new Error(message.message));
            break;
          }
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
    const failure = new InstanceCrashedError(`instance ${this.spec.id} crashed: ${error.message}`);
    for (const p of this.pending.values()) p.reject(failure);
    this.pending.clear();
    if (wasStarting) rejectStart(failure);
    else this.onCrash?.(failure);
  }

  run(inputs: WireTensor[], fault?: "throw"): Promise<{ outputs: WireTensor[]; computeMs: number }> {
    if (this.state !== "ready" || !this.worker)
      return Promise.reject(new InstanceCrashedError(`instance ${this.spec.id} is ${this.state}`));
    const seq = ++this.seq;
    const promise = new Promise<{ outputs: WireTensor[]; computeMs: number }>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      const request: WorkerRequest = { kind: "run", seq, inputs, fault };
      this.worker!.postMessage(
        request,
        inputs.map((t) => t.buffer),
      );
    });
    this.pendingPromises.add(promise);
    void promise.finally(() => this.pendingPromises.delete(promise)).catch(() => {});
    return promise;
  }

  /** Resolves once nothing is running on this instance (a removed instance finishes what it holds first). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pendingPromises]);
  }

  affinity(): ThreadAffinity[] {
    if (this.state !== "ready") return [];
    return verifyInstanceAffinity(this.tid, this.poolTids, this.spec.coreCpus);
  }

  async stop(): Promise<void> {
    this.state = "stopped";
    for (const p of this.pending.values()) p.reject(new InstanceCrashedError(`instance ${this.spec.id} stopped`));
    this.pending.clear();
    await this.worker?.terminate();
  }
}
