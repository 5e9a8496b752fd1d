import { describe, expect, it } from "vitest";
import {
  computeMsOf,
  createControl,
  CONTROL_BYTES,
  DONE,
  errorOf,
  grownSlabBytes,
  handOver,
  IDLE,
  readTensors,
  REQUEST,
  setComputeMs,
  slabBytes,
  STATE,
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
