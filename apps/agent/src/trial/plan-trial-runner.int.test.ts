// The plan trial on this host with the tiny CNN: plans run at once through the real dispatcher, interleaved in
// rounds; a plan that cannot start is reported with its reason while the others are measured; cancel stops it.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { recurrentModel } from "../../../../src/lib/onnx/wild-models";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { readHostTopology } from "../topology-reader";
import { PlanTrialRunner, TrialCancelledError, type TrialRequest } from "./plan-trial-runner";

const dir = mkdtempSync(join(tmpdir(), "packrat-trial-"));
const modelPath = join(dir, "tiny-cnn.onnx");
writeFileSync(modelPath, buildTinyCnn({ seed: 3, producerVersion: "packrat-test" }));
const { topology, allowedCpus } = readHostTopology();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: Omit<TrialRequest, "plans"> = {
  modelPath,
  batch: 4,
  dimensions: {},
  budgetCpus: allowedCpus,
  rounds: 3,
  roundMs: 150,
  settleMs: 20,
  minBatchesPerTurn: 3,
  warmupIterations: 1,
  allowSpinning: true,
  maxDurationMs: 120_000,
};

describe("plan trial runner", () => {
  it("measures every plan in every round, through the dispatcher's split; overhead is dispatch time over the slowest instance's", async () => {
    const rounds: number[] = [];
    const outcome = await new PlanTrialRunner(topology).run(
      {
        ...base,
        plans: [
          { key: "⟨1,1,4⟩", groups: [{ count: 1, threads: 1, batch: 4 }] },
          { key: "⟨2,1,2⟩", groups: [{ count: 2, threads: 1, batch: 2 }] },
          // Three one-thread instances cannot be placed on two cores: reported, not fatal.
          {
            key: "⟨3,1,1⟩+⟨1,1,1⟩",
            groups: [
              { count: 3, threads: 1, batch: 1 },
              { count: 1, threads: 1, batch: 1 },
            ],
          },
        ],
      },
      async (round) => {
        rounds.push(round);
      },
    );
    expect(rounds).toEqual([1, 2, 3]);
    const [one, two, bad] = outcome.plans;
    for (const p of [one!, two!]) {
      expect(p.error).toBeUndefined();
      expect(p.turns).toHaveLength(3);
      for (const t of p.turns) {
        expect(t.batches).toBeGreaterThanOrEqual(3);
        // Client ≥ dispatcher ≥ slowest instance: each contains the next.
        expect(t.meanMs).toBeGreaterThanOrEqual(t.dispatchMeanMs);
        expect(t.dispatchMeanMs).toBeGreaterThan(t.instanceMeanMs);
        expect(t.instanceMeanMs).toBeGreaterThan(0);
      }
    }
    expect(bad!.error).toMatch(/^cannot start: /);
    expect(bad!.turns).toEqual([]);
    expect(outcome.stoppedEarly).toBe(false);
  }, 180_000);

  it("a model batched on axis 1 (state [layers, batch, hidden]) is trialled with inputs shaped and split along that axis", async () => {
    const recurrent = join(dir, "recurrent.onnx");
    writeFileSync(recurrent, recurrentModel({ scalarInput: false }));
    const outcome = await new PlanTrialRunner(topology).run(
      {
        ...base,
        modelPath: recurrent,
        batch: 2,
        rounds: 2,
        plans: [
          { key: "⟨1,1,2⟩", groups: [{ count: 1, threads: 1, batch: 2 }] },
          { key: "⟨2,1,1⟩", groups: [{ count: 2, threads: 1, batch: 1 }] },
        ],
      },
      async () => {},
    );
    // Both plans ran: B = 2 rows went as h0 [2, 2, 16] to one instance, or as two [2, 1, 16] halves to two.
    for (const p of outcome.plans) {
      expect(p.error).toBeUndefined();
      expect(p.turns).toHaveLength(2);
      for (const t of p.turns) expect(t.instanceMeanMs).toBeGreaterThan(0);
    }
  }, 120_000);

  it("a plan whose instances fail to start (a corrupt model) is reported with ORT's reason", async () => {
    const broken = join(dir, "broken.onnx");
    writeFileSync(broken, Buffer.from("not an onnx model"));
    const run = new PlanTrialRunner(topology).run(
      { ...base, modelPath: broken, plans: [{ key: "⟨1,1,4⟩", groups: [{ count: 1, threads: 1, batch: 4 }] }] },
      async () => {},
    );
    await expect(run).rejects.toThrow(/protobuf|parse|model/i);
  }, 120_000);

  it("stops when cancelled after the first round", async () => {
    const runner = new PlanTrialRunner(topology);
    const run = runner.run(
      { ...base, rounds: 20, plans: [{ key: "⟨1,1,4⟩", groups: [{ count: 1, threads: 1, batch: 4 }] }] },
      async (round) => {
        if (round === 1) runner.cancel();
      },
    );
    await expect(run).rejects.toBeInstanceOf(TrialCancelledError);
  }, 120_000);
});
