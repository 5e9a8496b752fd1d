// The dispatcher against hand-written fake instances that record what they were given and answer with a
// function of their input (out = 10·in + instance id·1000 would hide mix-ups; we use out = in + 0.5 per row).
import { describe, expect, it } from "vitest";
import { Dispatcher, DispatchError, type DispatchTarget } from "./dispatcher";
import { typedView, type WireTensor } from "./tensor-types";

class FakeInstance implements DispatchTarget {
  state = "ready";
  calls: number[][] = []; // the first column of each row it received
  alone: Array<boolean | undefined> = []; // what each run was told about being alone
  constructor(
    readonly spec: { id: number; batch: number },
    private delayMs = 1,
    private failing = false,
  ) {}
  async run(inputs: WireTensor[], _fault?: "throw", alone?: boolean) {
    this.alone.push(alone);
    const x = typedView(inputs[0]!) as Float32Array;
    const rows = inputs[0]!.shape[0]!;
    const width = inputs[0]!.shape[1]!;
    this.calls.push(Array.from({ length: rows }, (_, r) => x[r * width]!));
    await new Promise((r) => setTimeout(r, this.delayMs));
    if (this.failing) throw new Error("boom");
    const out = new Float32Array(rows);
    for (let r = 0; r < rows; r++) out[r] = x[r * width]! + 0.5;
    return {
      outputs: [{ name: "y", datatype: "FP32" as const, shape: [rows, 1], buffer: out.buffer }],
      computeMs: this.delayMs,
    };
  }
}

/** rows × width tensor whose row r starts with first + r. */
function tensor(first: number, rows: number, width = 2, name = "x"): WireTensor {
  const data = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) data[r * width] = first + r;
  return { name, datatype: "FP32", shape: [rows, width], buffer: data.buffer };
}

const firstColumn = (t: WireTensor) => Array.from(typedView(t) as Float32Array);

describe("dispatcher", () => {
  it("returns each request exactly its own rows when requests share a batch", async () => {
    const instances = [new FakeInstance({ id: 0, batch: 4 }), new FakeInstance({ id: 1, batch: 4 })];
    const d = new Dispatcher({ batchSize: 8, batchTimeoutMs: 20, maxQueueRows: 100, instances: () => instances });
    // 1 + 3 + 4 = 8 rows: one full batch, dispatched without waiting for the timeout.
    const [a, b, c] = await Promise.all([
      d.infer([tensor(100, 1)]),
      d.infer([tensor(200, 3)]),
      d.infer([tensor(300, 4)]),
    ]);
    expect(firstColumn(a.outputs[0]!)).toEqual([100.5]);
    expect(firstColumn(b.outputs[0]!)).toEqual([200.5, 201.5, 202.5]);
    expect(firstColumn(c.outputs[0]!)).toEqual([300.5, 301.5, 302.5, 303.5]);
    expect(a.timing.batchRows).toBe(8);
    // Split by b, largest first: instance 0 took rows 0–3 (100, 200, 201, 202), instance 1 rows 4–7.
    expect(instances[0]!.calls).toEqual([[100, 200, 201, 202]]);
    expect(instances[1]!.calls).toEqual([[300, 301, 302, 303]]);
  });

  it("fills instances in descending b when a batch times out short", async () => {
    const small = new FakeInstance({ id: 0, batch: 2 });
    const large = new FakeInstance({ id: 1, batch: 6 });
    const d = new Dispatcher({ batchSize: 8, batchTimeoutMs: 5, maxQueueRows: 100, instances: () => [small, large] });
    const result = await d.infer([tensor(0, 7)]);
    // 7 rows: the b = 6 instance takes 6, the b = 2 instance the last one.
    expect(large.calls).toEqual([[0, 1, 2, 3, 4, 5]]);
    expect(small.calls).toEqual([[6]]);
    expect(firstColumn(result.outputs[0]!)).toEqual([0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5]);
  });

  it("sends a lone request straight to an idle instance, its own tensor uncopied, and queues what comes meanwhile", async () => {
    const instance = new FakeInstance({ id: 0, batch: 4 }, 5);
    const seen: WireTensor[] = [];
    const run = instance.run.bind(instance);
    instance.run = (inputs: WireTensor[]) => {
      seen.push(inputs[0]!);
      return run(inputs);
    };
    // B = 1 per request here: a one-row request fills its batch, so there is nothing to wait for.
    const d = new Dispatcher({ batchSize: 1, batchTimeoutMs: 1_000, maxQueueRows: 100, instances: () => [instance] });
    const lone = tensor(0, 1);
    const first = d.infer([lone]);
    // On the instance before infer returned: no queue, no timer.
    expect(instance.calls).toEqual([[0]]);
    expect(seen[0]!.buffer).toBe(lone.buffer);
    expect(d.queueDepthRequests).toBe(0);
    // While it runs, the next two wait in the queue and go one batch each, in order.
    const second = d.infer([tensor(10, 1)]);
    const third = d.infer([tensor(20, 1)]);
    expect(d.queueDepthRequests).toBe(2);
    const results = await Promise.all([first, second, third]);
    expect(results.map((r) => firstColumn(r.outputs[0]!))).toEqual([[0.5], [10.5], [20.5]]);
    expect(instance.calls).toEqual([[0], [10], [20]]);
  });

  it("tells an instance a request is alone only when it is the only one in flight and runs whole on that instance", async () => {
    let alone = true;
    const one = new FakeInstance({ id: 0, batch: 4 });
    const d = new Dispatcher({
      batchSize: 1,
      batchTimeoutMs: 0,
      maxQueueRows: 100,
      instances: () => [one],
      alone: () => alone,
    });
    await d.infer([tensor(0, 1)]);
    alone = false;
    await d.infer([tensor(1, 1)]);
    expect(one.alone).toEqual([true, false]);

    // Split across two instances: each answer is read as it comes, so neither may block.
    alone = true;
    const pair = [new FakeInstance({ id: 0, batch: 1 }), new FakeInstance({ id: 1, batch: 1 })];
    const split = new Dispatcher({
      batchSize: 2,
      batchTimeoutMs: 0,
      maxQueueRows: 100,
      instances: () => pair,
      alone: () => alone,
    });
    await split.infer([tensor(0, 2)]);
    expect(pair.map((i) => i.alone)).toEqual([[false], [false]]);

    // A lone one-row request with two idle instances: another request could start on the second one meanwhile,
    // so the event loop must not block.
    const idlePair = [new FakeInstance({ id: 0, batch: 1 }), new FakeInstance({ id: 1, batch: 1 })];
    const spare = new Dispatcher({
      batchSize: 1,
      batchTimeoutMs: 0,
      maxQueueRows: 100,
      instances: () => idlePair,
      alone: () => alone,
    });
    await spare.infer([tensor(0, 1)]);
    expect(idlePair.flatMap((i) => i.alone)).toEqual([false]);

    // Two requests in one batch: never alone, whatever the count says.
    const shared = new FakeInstance({ id: 0, batch: 4 });
    const batched = new Dispatcher({
      batchSize: 2,
      batchTimeoutMs: 1_000,
      maxQueueRows: 100,
      instances: () => [shared],
      alone: () => alone,
    });
    await Promise.all([batched.infer([tensor(0, 1)]), batched.infer([tensor(1, 1)])]);
    expect(shared.alone).toEqual([false]);

    // Without a count (no alone option), nothing is alone.
    const plain = new FakeInstance({ id: 0, batch: 1 });
    await new Dispatcher({ batchSize: 1, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [plain] }).infer([
      tensor(0, 1),
    ]);
    expect(plain.alone).toEqual([false]);
  });

  it("gives an instance a request's own tensors when its slice is exactly that request, and the request its outputs", async () => {
    const given: WireTensor[][] = [];
    const answered: WireTensor[][] = [];
    class Recording extends FakeInstance {
      override async run(inputs: WireTensor[], fault?: "throw", alone?: boolean) {
        given.push(inputs);
        const result = await super.run(inputs, fault, alone);
        answered.push(result.outputs);
        return result;
      }
    }
    const pair = [new Recording({ id: 0, batch: 1 }, 5), new Recording({ id: 1, batch: 1 }, 5)];
    const d = new Dispatcher({ batchSize: 2, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => pair });
    const first = d.infer([tensor(10, 1)]);
    // Queued behind the first batch, then batched together: one row each on the two b = 1 instances.
    const a = [tensor(20, 1)];
    const b = [tensor(30, 1)];
    const [, ra, rb] = await Promise.all([first, d.infer(a), d.infer(b)]);
    expect(ra.timing.batchRows).toBe(2);
    expect(given.slice(1)).toEqual([a, b]);
    expect(given[1]).toBe(a);
    expect(given[2]).toBe(b);
    expect(ra.outputs).toBe(answered[1]);
    expect(rb.outputs).toBe(answered[2]);
    expect(firstColumn(ra.outputs[0]!)).toEqual([20.5]);
    expect(firstColumn(rb.outputs[0]!)).toEqual([30.5]);

    // A two-row request on the same instances is cut from the batch as before: each instance one of its rows.
    const [wide] = await Promise.all([d.infer([tensor(40, 2)])]);
    expect(firstColumn(wide.outputs[0]!)).toEqual([40.5, 41.5]);
    expect(given.slice(3).map((inputs) => inputs[0]!.shape)).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });

  it("never splits one request's rows across two batches", async () => {
    const instance = new FakeInstance({ id: 0, batch: 8 }, 5);
    const d = new Dispatcher({ batchSize: 8, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [instance] });
    const first = d.infer([tensor(0, 1)]); // dispatched at once (timeout 0)
    // While it runs, 6 + 5 rows queue up: 6 fit the next batch; the 5 wait for the one after.
    const second = d.infer([tensor(10, 6)]);
    const third = d.infer([tensor(20, 5)]);
    await Promise.all([first, second, third]);
    expect(instance.calls).toEqual([[0], [10, 11, 12, 13, 14, 15], [20, 21, 22, 23, 24]]);
  });

  it("runs a request larger than B alone, in waves of B", async () => {
    const instance = new FakeInstance({ id: 0, batch: 4 });
    const d = new Dispatcher({ batchSize: 4, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [instance] });
    const result = await d.infer([tensor(0, 10)]);
    expect(instance.calls).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
    expect(firstColumn(result.outputs[0]!)).toHaveLength(10);
    expect(result.timing.batchRows).toBe(10);
  });

  it("batches only requests whose non-batch dimensions match", async () => {
    const instance = new FakeInstance({ id: 0, batch: 8 }, 5);
    const d = new Dispatcher({ batchSize: 8, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [instance] });
    const blocker = d.infer([tensor(0, 1)]);
    const wide = d.infer([tensor(10, 2, 3)]);
    const narrow = d.infer([tensor(20, 2, 2)]);
    const wide2 = d.infer([tensor(30, 2, 3)]);
    await Promise.all([blocker, wide, narrow, wide2]);
    // After the blocker: the head (width 3) batches with the other width-3 request; width 2 goes alone.
    expect(instance.calls).toEqual([[0], [10, 11, 30, 31], [20, 21]]);
  });

  it("waits for the batch timeout, then dispatches a partial batch, and accounts formation vs busy wait", async () => {
    const instance = new FakeInstance({ id: 0, batch: 8 });
    const d = new Dispatcher({ batchSize: 8, batchTimeoutMs: 30, maxQueueRows: 100, instances: () => [instance] });
    const result = await d.infer([tensor(0, 1)]);
    expect(result.timing.formationMs).toBeGreaterThanOrEqual(29);
    expect(result.timing.busyWaitMs).toBe(0);
  });

  it("counts the wait behind a running batch as busy wait, not formation", async () => {
    const instance = new FakeInstance({ id: 0, batch: 1 }, 40);
    const d = new Dispatcher({ batchSize: 1, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [instance] });
    const [, second] = await Promise.all([d.infer([tensor(0, 1)]), d.infer([tensor(1, 1)])]);
    expect(second.timing.busyWaitMs).toBeGreaterThanOrEqual(30);
    expect(second.timing.formationMs).toBeLessThan(second.timing.busyWaitMs);
  });

  it("rejects beyond the queue bound with 503 and Retry-After", () => {
    const d = new Dispatcher({
      batchSize: 4,
      batchTimeoutMs: 0,
      maxQueueRows: 5,
      instances: () => [new FakeInstance({ id: 0, batch: 4 })],
    });
    try {
      void d.infer([tensor(0, 6)]);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(DispatchError);
      expect((error as DispatchError).status).toBe(503);
      expect((error as DispatchError).retryAfterS).toBeGreaterThan(0);
      expect((error as Error).message).toMatch(/queue full/);
    }
  });

  it("fails only the batch whose instance threw", async () => {
    const bad = new FakeInstance({ id: 0, batch: 2 }, 1, true);
    const good = new FakeInstance({ id: 0, batch: 2 });
    let current: DispatchTarget[] = [bad];
    const d = new Dispatcher({ batchSize: 2, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => current });
    await expect(d.infer([tensor(0, 2)])).rejects.toMatchObject({ status: 503 });
    current = [good];
    const ok = await d.infer([tensor(5, 2)]);
    expect(firstColumn(ok.outputs[0]!)).toEqual([5.5, 6.5]);
  });

  it("rejects a request whose deadline the work ahead cannot meet", async () => {
    const instance = new FakeInstance({ id: 0, batch: 1 }, 30);
    const d = new Dispatcher({ batchSize: 1, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [instance] });
    await d.infer([tensor(0, 1)]); // one batch of ≈30 ms teaches the dispatcher its service bound
    const running = d.infer([tensor(1, 1)]);
    const queued = [d.infer([tensor(2, 1)]), d.infer([tensor(3, 1)])];
    // ≈ 30 ms running + 2 × 30 ms queued + 30 ms own service ≫ 10 ms.
    expect(() => d.infer([tensor(4, 1)], { deadlineMs: 10 })).toThrow(/deadline 10 ms cannot be met/);
    await Promise.all([running, ...queued]);
  });

  it("drains: queued work finishes before drain resolves", async () => {
    const instance = new FakeInstance({ id: 0, batch: 1 }, 10);
    const d = new Dispatcher({ batchSize: 1, batchTimeoutMs: 0, maxQueueRows: 100, instances: () => [instance] });
    const all = [0, 1, 2].map((i) => d.infer([tensor(i, 1)]));
    await d.drain(5_000);
    expect(instance.calls).toHaveLength(3);
    await expect(Promise.all(all)).resolves.toHaveLength(3);
  });
});

describe("dispatcher: batch axes and unbatched models", () => {
  /** Echoes its input: out = in + 0.5, so each request must get back exactly its own values. */
  class EchoInstance implements DispatchTarget {
    state = "ready";
    shapes: number[][][] = [];
    running = 0;
    maxRunning = 0;
    constructor(readonly spec: { id: number; batch: number }) {}
    async run(inputs: WireTensor[]) {
      this.shapes.push(inputs.map((t) => t.shape));
      this.running++;
      this.maxRunning = Math.max(this.maxRunning, this.running);
      await new Promise((r) => setTimeout(r, 2));
      this.running--;
      const outputs = inputs.map((t) => ({
        ...t,
        name: `${t.name}_out`,
        buffer: Float32Array.from(typedView(t) as Float32Array, (v) => v + 0.5).buffer,
      }));
      return { outputs, computeMs: 2 };
    }
  }
  const state = (seed: number, rows: number): WireTensor => ({
    name: "h",
    datatype: "FP32",
    shape: [2, rows, 3],
    buffer: Float32Array.from({ length: 6 * rows }, (_, i) => seed + i).buffer,
  });

  it("concatenates and splits [layers, batch, hidden] state along axis 1", async () => {
    const instance = new EchoInstance({ id: 0, batch: 4 });
    const axes = new Map([
      ["x", 0],
      ["h", 1],
      ["x_out", 0],
      ["h_out", 1],
    ]);
    const d = new Dispatcher({
      batchSize: 3,
      batchTimeoutMs: 50,
      maxQueueRows: 100,
      instances: () => [instance],
      layout: { kind: "batched", axes },
    });
    const [a, b] = await Promise.all([
      d.infer([tensor(10, 1, 2), state(100, 1)]),
      d.infer([tensor(20, 2, 2), state(200, 2)]),
    ]);
    // One batch of 3 rows: x [3, 2], h [2, 3, 3].
    expect(instance.shapes).toEqual([
      [
        [3, 2],
        [2, 3, 3],
      ],
    ]);
    expect(values(a.outputs[1]!)).toEqual(values(state(100, 1)).map((v) => v + 0.5));
    expect(values(b.outputs[1]!)).toEqual(values(state(200, 2)).map((v) => v + 0.5));
    expect(b.outputs[1]!.shape).toEqual([2, 2, 3]);
  });

  it("refuses requests whose inputs disagree on the batch size, naming the tensor and dimension", () => {
    const d = new Dispatcher({
      batchSize: 4,
      batchTimeoutMs: 0,
      maxQueueRows: 100,
      instances: () => [],
      layout: { kind: "batched", axes: new Map([["h", 1]]) },
    });
    expect(() => d.infer([tensor(0, 2), state(0, 3)])).toThrow(
      "inputs disagree on the batch size: input x dimension 0 has 2, input h dimension 1 is 3",
    );
  });

  it("an unbatched model: each request runs whole on one instance, never concatenated, instances in parallel", async () => {
    const instances = [new EchoInstance({ id: 0, batch: 1 }), new EchoInstance({ id: 1, batch: 1 })];
    const d = new Dispatcher({
      batchSize: 2,
      batchTimeoutMs: 20,
      maxQueueRows: 100,
      instances: () => instances,
      layout: { kind: "unbatched", reason: "scalar" },
    });
    const results = await Promise.all([d.infer([state(0, 3)]), d.infer([state(100, 2)]), d.infer([state(200, 1)])]);
    expect(results.map((r) => r.outputs[0]!.shape)).toEqual([
      [2, 3, 3],
      [2, 2, 3],
      [2, 1, 3],
    ]);
    expect(values(results[1]!.outputs[0]!)).toEqual(values(state(100, 2)).map((v) => v + 0.5));
    // Requests 1 and 2 formed one batch of two, one on each instance; request 3 the next.
    expect(instances[0]!.shapes.map((s) => s[0])).toEqual([
      [2, 3, 3],
      [2, 1, 3],
    ]);
    expect(instances[1]!.shapes.map((s) => s[0])).toEqual([[2, 2, 3]]);
  });
});
const values = (t: WireTensor) => Array.from(typedView(t) as Float32Array);
