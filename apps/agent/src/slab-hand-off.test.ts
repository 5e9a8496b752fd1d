import { Worker } from "node:worker_threads";
import { afterEach, describe, expect, it } from "vitest";
import {
  answeredWithin,
  computeMsOf,
  createControl,
  CONTROL_BYTES,
  DONE,
  errorOf,
  grownSlabBytes,
  handOver,
  headsUp,
  headsUpPending,
  IDLE,
  LATE_WAIT_BOUND_MS,
  LATE_WAIT_LEAD_MS,
  lateWaitPlan,
  readTensors,
  REQUEST,
  setComputeMs,
  SpinGate,
  slabBytes,
  STATE,
  SYNC_WAIT_LIMIT_MS,
  SYNC_WAIT_MARGIN_MS,
  syncWaitBoundMs,
  whenAnswered,
  writeError,
  writeTensors,
  type SlabTensor,
} from "./slab-hand-off";

const bytesOf = (view: ArrayBufferView) => new Uint8Array(view.buffer, view.byteOffset, view.byteLength);

describe("the slab hand-off", () => {
  const tensors: SlabTensor[] = [
    { index: 2, datatype: "BOOL", shape: [3], bytes: bytesOf(new Uint8Array([1, 0, 1])) },
    { index: 0, datatype: "INT64", shape: [1, 2], bytes: bytesOf(new BigInt64Array([-5n, 7n])) },
    { index: 1, datatype: "FP32", shape: [2, 1, 2], bytes: bytesOf(new Float32Array([0.5, -1, 2, 3])) },
  ];

  it("gives back each tensor's index, datatype, shape and bytes, every one 8-byte aligned for in-place views", () => {
    const control = createControl();
    const slab = new SharedArrayBuffer(slabBytes(tensors));
    expect(slab.byteLength).toBe(8 + 16 + 16);
    writeTensors(control, slab, tensors);
    const read = readTensors(control, slab);
    expect(read.map(({ index, datatype, shape }) => ({ index, datatype, shape }))).toEqual(
      tensors.map(({ index, datatype, shape }) => ({ index, datatype, shape })),
    );
    for (const [i, t] of read.entries()) {
      expect(t.bytes.byteOffset % 8).toBe(0);
      expect([...t.bytes]).toEqual([...tensors[i]!.bytes]);
    }
    expect([...new BigInt64Array(slab, read[1]!.bytes.byteOffset, 2)]).toEqual([-5n, 7n]);
    expect(errorOf(control)).toBeUndefined();
  });

  it("describes moved tensors without a slab, and reads them from their own buffers", () => {
    const control = createControl();
    writeTensors(control, undefined, tensors);
    const buffers = tensors.map((t) => new Uint8Array(t.bytes).buffer);
    const read = readTensors(control, buffers);
    for (const [i, t] of read.entries()) {
      expect(t.bytes.buffer).toBe(buffers[i]);
      expect(t.shape).toEqual(tensors[i]!.shape);
      expect([...t.bytes]).toEqual([...tensors[i]!.bytes]);
    }
  });

  it("refuses to write past a slab, and grows slabs by doubling to what is needed", () => {
    const control = createControl();
    expect(() => writeTensors(control, new SharedArrayBuffer(16), tensors)).toThrow(/too small/);
    expect(grownSlabBytes(4096, 4097)).toBe(8192);
    expect(grownSlabBytes(8192, 100)).toBe(8192);
    expect(grownSlabBytes(0, 50_000)).toBe(65_536);
  });

  it("refuses descriptors the control block cannot hold", () => {
    const shape = new Array<number>(CONTROL_BYTES / 4).fill(1);
    expect(() =>
      writeTensors(createControl(), new SharedArrayBuffer(8), [
        { index: 0, datatype: "FP32", shape, bytes: new Uint8Array(4) },
      ]),
    ).toThrow(/descriptors need more/);
  });

  it("carries a run's error message instead of tensors, cut to what the control block holds", () => {
    const control = createControl();
    writeTensors(control, new SharedArrayBuffer(slabBytes(tensors)), tensors);
    writeError(control, "shape mismatch: é");
    expect(errorOf(control)).toBe("shape mismatch: é");
    expect(readTensors(control, new SharedArrayBuffer(8))).toEqual([]);
    writeError(control, "x".repeat(2 * CONTROL_BYTES));
    expect(errorOf(control)!.length).toBeLessThan(CONTROL_BYTES);
    setComputeMs(control, 1.25);
    expect(computeMsOf(control)).toBe(1.25);
  });

  it("wakes the event-loop side's wait when the turn comes back, and does not wait for an answer already there", async () => {
    const control = createControl();
    expect(Atomics.load(control, STATE)).toBe(IDLE);
    handOver(control, REQUEST);
    const waiting = whenAnswered(control);
    expect(waiting).toBeInstanceOf(Promise);
    let woke = false;
    void waiting!.then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    handOver(control, DONE);
    await waiting;
    expect(woke).toBe(true);
    expect(whenAnswered(control)).toBeUndefined();
  });
});

/**
 * A stand-in for an instance thread, in a real worker: it sleeps until the state word says REQUEST, then until the
 * test opens its gate (word 0 of `gate`), then answers DONE the way an instance does.
 */
const ANSWERER = `
const { workerData } = require("node:worker_threads");
const control = new Int32Array(workerData.control);
const gate = new Int32Array(workerData.gate);
while (Atomics.load(control, ${STATE}) !== ${REQUEST}) Atomics.wait(control, ${STATE}, Atomics.load(control, ${STATE}));
while (Atomics.load(gate, 0) === 0) Atomics.wait(gate, 0, 0);
Atomics.store(control, ${STATE}, ${DONE});
Atomics.notify(control, ${STATE});
`;

describe("the event loop's synchronous wait for an answer", () => {
  const workers: Worker[] = [];
  afterEach(async () => {
    for (const w of workers.splice(0)) await w.terminate();
  });

  function answerer(open: boolean): { control: Int32Array; openGate: () => void } {
    const control = createControl();
    const gate = new Int32Array(new SharedArrayBuffer(4));
    if (open) gate[0] = 1;
    workers.push(new Worker(ANSWERER, { eval: true, workerData: { control: control.buffer, gate: gate.buffer } }));
    return {
      control,
      openGate: () => {
        Atomics.store(gate, 0, 1);
        Atomics.notify(gate, 0);
      },
    };
  }

  it("returns with the answer another thread hands back while the event loop is blocked", () => {
    const { control } = answerer(true);
    handOver(control, REQUEST);
    // A generous bound: the answer, not the bound, ends this wait.
    expect(answeredWithin(control, 60_000)).toBe(true);
    expect(Atomics.load(control, STATE)).toBe(DONE);
  });

  it("reads the answer while spinning, before any sleep", () => {
    const { control } = answerer(true);
    handOver(control, REQUEST);
    // The whole (generous) bound spinning: the answer ends it, with no Atomics.wait at all.
    expect(answeredWithin(control, 60_000, 60_000)).toBe(true);
    expect(Atomics.load(control, STATE)).toBe(DONE);
  });

  it("spins, then sleeps, then gives up at its bound when no answer comes", () => {
    const { control } = answerer(false);
    handOver(control, REQUEST);
    expect(answeredWithin(control, 2, 1)).toBe(false);
    // A spin longer than the bound is cut to it.
    expect(answeredWithin(control, 1, 50)).toBe(false);
    expect(Atomics.load(control, STATE)).toBe(REQUEST);
  });

  it("gives up after its bound when no answer comes, and the asynchronous wait then gets the late answer", async () => {
    const { control, openGate } = answerer(false);
    handOver(control, REQUEST);
    expect(answeredWithin(control, 1)).toBe(false);
    expect(Atomics.load(control, STATE)).toBe(REQUEST);
    // The fallback, as the instance does it: wait asynchronously (re-checking) until the state word leaves REQUEST.
    const answered = (async () => {
      while (Atomics.load(control, STATE) === REQUEST) await whenAnswered(control);
      return Atomics.load(control, STATE);
    })();
    openGate();
    expect(await answered).toBe(DONE);
  });

  it("does not wait for an answer already there, nor when it is not a request's turn", () => {
    const control = createControl();
    handOver(control, DONE);
    expect(answeredWithin(control, 0)).toBe(true);
    Atomics.store(control, STATE, IDLE);
    expect(answeredWithin(control, 0)).toBe(true);
    handOver(control, REQUEST);
    expect(answeredWithin(control, 0)).toBe(false);
  });

  it("spins for all but the margin, and after a spin the answer outlasted, sleeps from the start for a while", () => {
    const gate = new SpinGate();
    expect(gate.spinMs(0.9)).toBeCloseTo(0.4, 12);
    gate.record(0.4, 0.3, true); // caught while spinning
    expect(gate.spinMs(0.9)).toBeCloseTo(0.4, 12);
    gate.record(0.4, 0.45, true); // answered during the sleep after the spin: a miss
    for (let i = 0; i < SpinGate.PAUSE_AFTER_MISS; i++) expect(gate.spinMs(0.9)).toBe(0);
    expect(gate.spinMs(0.9)).toBeCloseTo(0.4, 12);
    gate.record(0.4, 0.9, false); // no answer within the bound: a miss too
    expect(gate.spinMs(0.9)).toBe(0);
    // A wait that did not spin says nothing about spinning.
    gate.record(0, 5, false);
    expect(SpinGate.PAUSE_AFTER_MISS).toBeGreaterThan(1);
  });

  it("is bounded by twice the instance's recent run time plus half a millisecond, and only when that is short", () => {
    expect(syncWaitBoundMs(undefined)).toBeUndefined();
    expect(syncWaitBoundMs(0)).toBe(SYNC_WAIT_MARGIN_MS);
    expect(SYNC_WAIT_MARGIN_MS).toBe(0.5);
    expect(syncWaitBoundMs(0.2)).toBeCloseTo(0.9, 12);
    expect(syncWaitBoundMs(0.7)).toBeCloseTo(1.9, 12);
    // 2 × 0.75 + 0.5 = 2: not under the limit, so the event loop waits asynchronously.
    expect(syncWaitBoundMs(0.75)).toBeUndefined();
    expect(syncWaitBoundMs(40)).toBeUndefined();
    expect(syncWaitBoundMs(Number.NaN)).toBeUndefined();
    expect(syncWaitBoundMs(-1)).toBeUndefined();
    expect(SYNC_WAIT_LIMIT_MS).toBe(2);
  });

  it("for a run too long to wait for synchronously, comes back shortly before it is due and spins within the same stall bound", () => {
    // Short runs are the synchronous wait's; nothing run yet, nothing to go by.
    expect(lateWaitPlan(undefined)).toBeUndefined();
    expect(lateWaitPlan(0.7)).toBeUndefined();
    expect(lateWaitPlan(Number.NaN)).toBeUndefined();
    expect(lateWaitPlan(80)).toEqual({ afterMs: 80 - LATE_WAIT_LEAD_MS, boundMs: LATE_WAIT_BOUND_MS });
    // A run just past the synchronous limit: back at once, not at a negative delay.
    expect(lateWaitPlan(1)).toEqual({ afterMs: 0, boundMs: LATE_WAIT_BOUND_MS });
    // The spin covers the lead and as much again: a run that much slower than usual goes on waiting asynchronously.
    expect(LATE_WAIT_BOUND_MS).toBeGreaterThan(2 * LATE_WAIT_LEAD_MS);
    expect(LATE_WAIT_BOUND_MS).toBeLessThanOrEqual(2 * SYNC_WAIT_LIMIT_MS + SYNC_WAIT_MARGIN_MS);
  });
});

/** The instance thread's own wait (waitForRequest, this module's code) in a real worker, which says when it returns. */
const WAITER = `
const { parentPort, workerData } = require("node:worker_threads");
(async () => {
  const { register } = await import("tsx/esm/api");
  register();
  const { waitForRequest } = await import(workerData.module);
  const control = new Int32Array(workerData.control);
  parentPort.postMessage("waiting");
  waitForRequest(control);
  // What the state word said when the wait returned: REQUEST, or the wait returned without one.
  parentPort.postMessage(Atomics.load(control, ${STATE}) === ${REQUEST} ? "request" : "returned without a request");
})();
`;

describe("a heads-up to a sleeping instance thread", () => {
  it("wakes it, is taken, and the request that follows is received; one without a request changes nothing", async () => {
    const control = createControl();
    const worker = new Worker(WAITER, {
      eval: true,
      workerData: { control: control.buffer, module: new URL("./slab-hand-off.ts", import.meta.url).href },
    });
    try {
      const messages: string[] = [];
      const next = () => new Promise<string>((resolve) => worker.once("message", resolve));
      messages.push(await next());
      // A heads-up with no request behind it: taken, and the thread goes on waiting.
      headsUp(control);
      // Taken as soon as the thread is awake (which may be before this line), then the thread sleeps again.
      while (headsUpPending(control)) await new Promise((resolve) => setImmediate(resolve));
      expect(messages).toEqual(["waiting"]);
      // A second, then the request: the thread returns from its wait with it.
      headsUp(control);
      const received = next();
      handOver(control, REQUEST);
      messages.push(await received);
      expect(messages).toEqual(["waiting", "request"]);
    } finally {
      await worker.terminate();
    }
  });
});
