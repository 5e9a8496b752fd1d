// One real instance thread (the tiny CNN in ONNX Runtime) behind the slab hand-off: slices larger than the slabs it
// started with, slices queued behind one another, a run that fails, and a thread that dies.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@packrat/modelzoo/registry";
import { Instance, InstanceCrashedError } from "./instance";
import type { WireTensor } from "./tensor-types";

const PIXELS = 3 * 32 * 32;

/** `batch` images; image i is image `seed + i` of a fixed series: a brightness of its own (so its logits differ,
 * the model pooling globally) plus a ripple. */
function images(batch: number, seed: number): WireTensor {
  const data = new Float32Array(batch * PIXELS);
  for (let i = 0; i < batch; i++) {
    const n = seed + i;
    for (let k = 0; k < PIXELS; k++) data[i * PIXELS + k] = ((n % 7) - 3) * 0.5 + 0.1 * Math.sin(n + k);
  }
  return { name: "input", datatype: "FP32", shape: [batch, 3, 32, 32], buffer: data.buffer };
}

const logits = (t: WireTensor) => Array.from(new Float32Array(t.buffer));

describe("an instance behind the slab hand-off", () => {
  let dir: string;
  let modelPath: string;
  const started: Instance[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "packrat-instance-"));
    modelPath = join(dir, "tiny-cnn.onnx");
    writeFileSync(modelPath, zooEntry("tiny-cnn").build());
  });
  afterEach(async () => {
    for (const i of started.splice(0)) await i.stop();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function start(faultInjection = false): Promise<Instance> {
    const instance = new Instance({
      id: 0,
      threads: 1,
      batch: 1,
      version: "1",
      coreCpus: [[0]],
      modelPath,
      warmupInputs: [images(1, 0)],
      warmupIterations: 1,
      allowSpinning: false,
      faultInjection,
    });
    started.push(instance);
    await instance.start();
    return instance;
  }

  it("answers slices far larger than its first slabs, moved or copied, and slices queued behind one another, each with its own rows", async () => {
    const instance = await start();
    const alone = await Promise.all([0, 1, 2].map((k) => instance.run([images(1, 100 + k)])));
    // 128 images: past both slabs sized at warm-up (inputs 16 KiB, outputs 4 KiB); rows 0–2 are the images above.
    const batch = images(128, 103);
    new Float32Array(batch.buffer).set(new Float32Array(images(3, 100).buffer), 0);
    // Queued behind each other: the dispatcher never does this, a removed instance finishing its work might.
    const [big, again] = await Promise.all([instance.run([batch]), instance.run([images(1, 101)])]);
    // 1.5 MiB: moved to the thread, not copied (the caller's buffer is detached); 16 images (192 KiB) are copied, into
    // an input slab grown for them.
    expect(batch.buffer.byteLength).toBe(0);
    const medium = await instance.run([images(16, 100)]);
    const mediumRows = logits(medium.outputs[0]!);
    logits(big.outputs[0]!)
      .slice(0, 30)
      .forEach((v, j) => expect(mediumRows[j]).toBeCloseTo(v, 4));
    expect(big.outputs[0]!.shape).toEqual([128, 10]);
    const rows = logits(big.outputs[0]!);
    for (const [k, r] of alone.entries()) {
      expect(r.outputs[0]!.name).toBe("logits");
      expect(r.outputs[0]!.shape).toEqual([1, 10]);
      logits(r.outputs[0]!).forEach((v, j) => expect(rows[k * 10 + j]).toBeCloseTo(v, 4));
    }
    expect(logits(again.outputs[0]!)).toEqual(logits(alone[1]!.outputs[0]!));
    // The rows differ from one another by more than the 5e-5 the comparisons above allow, so a mix-up would show.
    const distance = (a: number, b: number) =>
      Math.max(...Array.from({ length: 10 }, (_, j) => Math.abs(rows[a * 10 + j]! - rows[b * 10 + j]!)));
    expect(Math.min(distance(0, 1), distance(1, 2), distance(0, 2))).toBeGreaterThan(1e-4);
    expect(big.computeMs).toBeGreaterThan(0);
  });

  it("a run ONNX Runtime refuses fails with its message, and the instance serves on", async () => {
    const instance = await start();
    const wrongType: WireTensor = { ...images(1, 0), datatype: "INT32" };
    await expect(instance.run([wrongType])).rejects.toThrow(/type|int32|float/i);
    await expect(instance.run([{ ...images(1, 0), name: "pixels" }])).rejects.toThrow(/no input named pixels/);
    const ok = await instance.run([images(1, 5)]);
    expect(ok.outputs[0]!.shape).toEqual([1, 10]);
    expect(instance.state).toBe("ready");
  });

  it("answers a request alone in the process with the same rows, waited for synchronously once it has run times", async () => {
    const instance = await start();
    // The first has no run time to bound a synchronous wait: it is waited for asynchronously.
    expect(instance.syncWaitBoundMs).toBeUndefined();
    const expected = await Promise.all([0, 1, 2, 3].map((k) => instance.run([images(1, 200 + k)])));
    const bound = instance.syncWaitBoundMs;
    // Whatever the bound (a loaded host's run times may put it past the limit), twice the run time plus 0.5 ms.
    if (bound !== undefined) expect(bound).toBeGreaterThanOrEqual(0.5);
    for (const [k, e] of expected.entries()) {
      const r = await instance.run([images(1, 200 + k)], undefined, true);
      expect(r.outputs[0]!.shape).toEqual([1, 10]);
      logits(r.outputs[0]!).forEach((v, j) => expect(logits(e.outputs[0]!)[j]).toBeCloseTo(v, 5));
      expect(r.computeMs).toBeGreaterThan(0);
    }
  });

  it("a thread that dies while the event loop waits synchronously for it fails only its slice, then the next start serves", async () => {
    const instance = await start(true);
    for (let k = 0; k < 3; k++) await instance.run([images(1, k)], undefined, true);
    const crashed = new Promise<Error>((resolve) => (instance.onCrash = resolve));
    // Alone: the event loop blocks (bounded) on an answer that never comes, then waits asynchronously until the
    // thread's exit fails the slice.
    await expect(instance.run([images(1, 0)], "throw", true)).rejects.toBeInstanceOf(InstanceCrashedError);
    expect((await crashed).message).toMatch(/instance 0 crashed: injected instance fault/);
    await expect(instance.run([images(1, 1)], undefined, true)).rejects.toThrow(/instance 0 is crashed/);
    const again = await start();
    const r = await again.run([images(1, 1)], undefined, true);
    expect(r.outputs[0]!.shape).toEqual([1, 10]);
  });

  it("a thread that dies fails the slice it holds and those queued behind it, and nothing else", async () => {
    const instance = await start(true);
    const crashed = new Promise<Error>((resolve) => (instance.onCrash = resolve));
    const held = instance.run([images(1, 0)], "throw");
    const queued = instance.run([images(1, 1)]);
    await expect(held).rejects.toBeInstanceOf(InstanceCrashedError);
    await expect(queued).rejects.toBeInstanceOf(InstanceCrashedError);
    expect((await crashed).message).toMatch(/instance 0 crashed: injected instance fault/);
    expect(instance.state).toBe("crashed");
    await expect(instance.run([images(1, 2)])).rejects.toThrow(/instance 0 is crashed/);
    await instance.idle();
  });
});
