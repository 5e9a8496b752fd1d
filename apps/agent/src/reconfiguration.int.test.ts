// Live reconfiguration (Packrat §3.7) under steady traffic: plans and versions change while requests flow, and no
// request fails or gets a wrong answer. Traffic: a paced client at 40 requests/s (1–2 rows), far below the tiny
// CNN's capacity on this host (≈ 1 ms per batch), so every failure would be the switch's fault.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterEach, describe, expect, it } from "vitest";
import { Prng } from "@packrat/core/stats/prng";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { applyPlan, servedModelStatus as status, startAgent, type RunningAgent } from "./test-agent-process";

const ROW = 3 * 32 * 32;
const v1 = buildTinyCnn({ seed: 11, producerVersion: "packrat-test" });
const v2 = buildTinyCnn({ seed: 12, producerVersion: "packrat-test" });
let agent: RunningAgent | undefined;
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
});

interface Outcome {
  status: number;
  version?: string;
  rows: number;
  data: Float32Array;
  output?: number[];
  error?: string;
  sentAt: number;
  doneAt: number;
}

/** Sends requests every 25 ms until stopped; returns every outcome (transport errors included). */
function traffic(url: string) {
  const random = new Prng(99);
  const pending: Array<Promise<Outcome>> = [];
  let running = true;
  const timer = setInterval(() => {
    if (!running) return;
    const rows = 1 + random.int(2);
    const data = new Float32Array(rows * ROW);
    for (let i = 0; i < data.length; i++) data[i] = random.normal() * 3;
    const sentAt = performance.now();
    pending.push(
      fetch(`${url}/v2/models/tiny-cnn/infer`, {
        method: "POST",
        body: JSON.stringify({
          inputs: [{ name: "input", shape: [rows, 3, 32, 32], datatype: "FP32", data: Array.from(data) }],
        }),
      }).then(
        async (r) => {
          const body = await r.json();
          return {
            status: r.status,
            version: body.model_version,
            rows,
            data,
            output: body.outputs?.[0]?.data,
            error: body.error,
            sentAt,
            doneAt: performance.now(),
          };
        },
        (error: Error) => ({ status: 0, rows, data, error: error.message, sentAt, doneAt: performance.now() }),
      ),
    );
  }, 25);
  return {
    stop: async () => {
      running = false;
      clearInterval(timer);
      return Promise.all(pending);
    },
  };
}

async function checkOutcomes(outcomes: Outcome[], sessions: Record<string, ort.InferenceSession>) {
  const failed = outcomes.filter((o) => o.status !== 200);
  expect(failed.map((o) => `${o.status} ${o.error}`)).toEqual([]);
  for (const o of outcomes) {
    const session = sessions[o.version!];
    expect(session, `a response from unknown version ${o.version}`).toBeDefined();
    const expected = (await session!.run({ input: new ort.Tensor("float32", o.data, [o.rows, 3, 32, 32]) })).logits!
      .data as Float32Array;
    expect(o.output!.length).toBe(expected.length);
    for (let i = 0; i < expected.length; i++)
      expect(Math.abs(o.output![i]! - expected[i]!)).toBeLessThanOrEqual(1e-5 + 1e-4 * Math.abs(expected[i]!));
  }
}

const oneByTwo = { instances: [{ count: 1, threads: 2, batch: 4 }], batchTimeoutMs: 2 };
const twoByOne = { instances: [{ count: 2, threads: 1, batch: 2 }], batchTimeoutMs: 2 };

describe("live reconfiguration", () => {
  it("switches ⟨1 × 2 threads⟩ ↔ ⟨2 × 1⟩ three times under load with zero failed requests", async () => {
    agent = await startAgent({ modelBytes: v1, name: "tiny-cnn", plan: oneByTwo });
    const session = await ort.InferenceSession.create(Buffer.from(v1));
    const load = traffic(agent.url);
    const reports = [];
    let generation = 1;
    for (let round = 0; round < 3; round++) {
      for (const plan of [twoByOne, oneByTwo]) {
        await new Promise((r) => setTimeout(r, 300));
        const s = await applyPlan(agent, plan, ++generation);
        expect(s.lastReconfiguration.outcome).toBe("applied");
        expect(s.lastReconfiguration.kind).toBe("active-passive");
        expect(s.instances.map((i: { threads: number }) => i.threads)).toEqual(
          plan.instances[0]!.count === 2 ? [1, 1] : [2],
        );
        expect(s.affinityOk).toBe(true);
        reports.push(s.lastReconfiguration);
      }
    }
    await new Promise((r) => setTimeout(r, 300));
    const outcomes = await load.stop();
    expect(outcomes.length).toBeGreaterThan(50);
    await checkOutcomes(outcomes, { "1": session });
    // Every switch recorded its phases; on 2 cores the new set always overlaps the old one's CPUs.
    for (const r of reports) {
      expect(r.phasesMs.total).toBeGreaterThan(0);
      expect(r.overlapCpus.length).toBeGreaterThan(0);
    }
    await session.release();
  });

  it("scales 1 → 2 instances of 1 thread without restarting the one that stays", async () => {
    agent = await startAgent({
      modelBytes: v1,
      name: "tiny-cnn",
      plan: { instances: [{ count: 1, threads: 1, batch: 2 }], batchTimeoutMs: 2 },
    });
    const before = await status(agent);
    const load = traffic(agent.url);
    const s = await applyPlan(agent, { instances: [{ count: 2, threads: 1, batch: 2 }], batchTimeoutMs: 2 }, 2);
    const outcomes = await load.stop();
    expect(s.lastReconfiguration).toMatchObject({ kind: "scale", outcome: "applied", started: 1, stopped: 0, kept: 1 });
    expect(s.instances.map((i: { id: number }) => i.id)).toContain(before.instances[0].id);
    const session = await ort.InferenceSession.create(Buffer.from(v1));
    await checkOutcomes(outcomes, { "1": session });
    await session.release();
  });

  it("keeps the old set serving when the new one cannot start", async () => {
    agent = await startAgent({ modelBytes: v1, name: "tiny-cnn", plan: oneByTwo });
    const load = traffic(agent.url);
    // CPU 63 does not exist on this host: the new instance cannot pin itself, so it never becomes ready.
    const s = await applyPlan(
      agent,
      { instances: [{ count: 1, threads: 1, batch: 4, cpus: ["63"] }], batchTimeoutMs: 2 },
      2,
    );
    const outcomes = await load.stop();
    expect(s.lastReconfiguration.outcome).toBe("failed");
    expect(s.lastReconfiguration.error).toMatch(/failed to start|crashed/);
    expect(s.generation).toBe(1);
    expect(s.instances.map((i: { threads: number; state: string }) => [i.threads, i.state])).toEqual([[2, "ready"]]);
    const session = await ort.InferenceSession.create(Buffer.from(v1));
    await checkOutcomes(outcomes, { "1": session });
    await session.release();
  });

  it("rolls out v2 under load: answers before the switch match v1, after it v2", async () => {
    agent = await startAgent({ modelBytes: v1, name: "tiny-cnn", plan: twoByOne });
    const load = traffic(agent.url);
    await new Promise((r) => setTimeout(r, 400));
    writeFileSync(join(agent.dir, "tiny-cnn.onnx"), v2);
    const s = await applyPlan(agent, twoByOne, 2);
    await new Promise((r) => setTimeout(r, 400));
    const outcomes = await load.stop();
    expect(s.lastReconfiguration).toMatchObject({ kind: "active-passive", outcome: "applied" });
    expect(s.version).toBe("2");
    // Once v2 has answered, v1 never does again: one atomic switch. Judged by what a client can see: no request
    // sent after a v2 answer came back is answered by v1 (send order alone is not arrival order: a request on a
    // new connection may reach the agent after a later one on a pooled connection).
    const firstV2Answer = Math.min(...outcomes.filter((o) => o.version === "2").map((o) => o.doneAt));
    expect(outcomes.some((o) => o.version === "1" && o.doneAt < firstV2Answer)).toBe(true);
    expect(
      outcomes.filter((o) => o.version === "1" && o.sentAt > firstV2Answer).map((o) => o.sentAt - firstV2Answer),
    ).toEqual([]);
    expect(outcomes.filter((o) => o.sentAt > firstV2Answer).length).toBeGreaterThan(0);
    const sessions = {
      "1": await ort.InferenceSession.create(Buffer.from(v1)),
      "2": await ort.InferenceSession.create(Buffer.from(v2)),
    };
    await checkOutcomes(outcomes, sessions);
    await Promise.all(Object.values(sessions).map((x) => x.release()));
  });
});
