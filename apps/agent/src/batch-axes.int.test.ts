// Models whose batch is not on axis 0 of every tensor, served by the real agent (real ONNX Runtime, real HTTP):
// recurrent state [layers, batch, hidden] batched along axis 1, and the same model with a scalar input, which
// cannot be batched and is served request by request. Answers are compared with session.run, row by row.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ort from "onnxruntime-node";
import { recurrentModel, seededFloats } from "../../../src/lib/onnx/wild-models";
import { applyPlan, servedModelStatus, startAgent, type RunningAgent } from "./test-agent-process";

const batched = recurrentModel({ scalarInput: false });
const withScalar = recurrentModel({ scalarInput: true });
let agents: RunningAgent[] = [];
let sessions: ort.InferenceSession[] = [];

/** h0 [2, rows, 16] for request k: layer-major, so row r of layer l is at (l·rows + r)·16. */
const stateOf = (k: number, rows: number) => Float32Array.from(seededFloats(2 * rows * 16, 500 + k));
const inputOf = (k: number, rows: number) => Float32Array.from(seededFloats(rows * 8, 900 + k));

async function infer(agent: RunningAgent, k: number, rows: number, gain?: number) {
  const inputs = [
    { name: "x", shape: [rows, 8], datatype: "FP32", data: Array.from(inputOf(k, rows)) },
    { name: "h0", shape: [2, rows, 16], datatype: "FP32", data: Array.from(stateOf(k, rows)) },
    ...(gain !== undefined ? [{ name: "gain", shape: [], datatype: "FP32", data: [gain] }] : []),
  ];
  const response = await fetch(`${agent.url}/v2/models/recurrent/infer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ inputs }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OIP response, read field by field
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** The model run alone on one row: x[r], h0[:, r, :]. */
async function oneRow(session: ort.InferenceSession, k: number, rows: number, r: number, gain?: number) {
  const x = inputOf(k, rows).slice(r * 8, (r + 1) * 8);
  const s = stateOf(k, rows);
  const h = new Float32Array(32);
  for (let l = 0; l < 2; l++) h.set(s.subarray((l * rows + r) * 16, (l * rows + r + 1) * 16), l * 16);
  const feeds: Record<string, ort.Tensor> = {
    x: new ort.Tensor("float32", x, [1, 8]),
    h0: new ort.Tensor("float32", h, [2, 1, 16]),
  };
  if (gain !== undefined) feeds.gain = new ort.Tensor("float32", Float32Array.of(gain), []);
  const out = await session.run(feeds);
  return { y: Array.from(out.y!.data as Float32Array), hN: Array.from(out.hN!.data as Float32Array) };
}

function expectClose(actual: readonly number[], expected: readonly number[]) {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(1e-5);
}

/** Row r of a response: y[r] and hN[:, r, :]. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function rowOf(body: Record<string, any>, rows: number, r: number) {
  const y = body.outputs.find((o: { name: string }) => o.name === "y").data as number[];
  const hN = body.outputs.find((o: { name: string }) => o.name === "hN").data as number[];
  return {
    y: y.slice(r * 16, (r + 1) * 16),
    hN: [0, 1].flatMap((l) => hN.slice((l * rows + r) * 16, (l * rows + r + 1) * 16)),
  };
}

beforeAll(async () => {
  sessions = [
    await ort.InferenceSession.create(Buffer.from(batched)),
    await ort.InferenceSession.create(Buffer.from(withScalar)),
  ];
  agents = [
    // B = 8 with a 30 ms timeout: concurrent requests share one batch along each tensor's own axis.
    await startAgent({
      modelBytes: batched,
      name: "recurrent",
      plan: { instances: [{ count: 1, threads: 1, batch: 8 }], batchTimeoutMs: 30 },
    }),
    await startAgent({
      modelBytes: withScalar,
      name: "recurrent",
      plan: { instances: [{ count: 2, threads: 1, batch: 1 }], batchTimeoutMs: 0 },
    }),
  ];
}, 120_000);

afterAll(async () => {
  for (const a of agents) await a.stop();
  for (const s of sessions) await s.release();
});

describe("per-tensor batch axes through the agent", () => {
  it("state [layers, batch, hidden] is batched along axis 1: each request's rows equal session.run on that row alone", async () => {
    const sizes = [1, 3, 2];
    const answers = await Promise.all(sizes.map((rows, k) => infer(agents[0]!, k, rows)));
    for (const a of answers) expect(a.status).toBe(200);
    // They were served as one batch (6 rows), so concatenation along axis 1 and the split back were exercised.
    const status = await servedModelStatus(agents[0]!);
    expect(status.batchSize).toBe(8);
    for (const [k, rows] of sizes.entries()) {
      expect(answers[k]!.body.outputs.find((o: { name: string }) => o.name === "hN").shape).toEqual([2, rows, 16]);
      for (let r = 0; r < rows; r++) {
        const expected = await oneRow(sessions[0]!, k, rows, r);
        const got = rowOf(answers[k]!.body, rows, r);
        expectClose(got.y, expected.y);
        expectClose(got.hN, expected.hN);
      }
    }
  }, 60_000);

  it("inputs that disagree on the batch size get a 400 naming the tensor and dimension", async () => {
    const inputs = [
      { name: "x", shape: [2, 8], datatype: "FP32", data: new Array(16).fill(0) },
      { name: "h0", shape: [2, 3, 16], datatype: "FP32", data: new Array(96).fill(0) },
    ];
    const response = await fetch(`${agents[0]!.url}/v2/models/recurrent/infer`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ inputs }),
    });
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(
      'inputs disagree on the batch size: input x has 2, input h0 dimension 1 "batch" is 3',
    );
  }, 30_000);

  it("a scalar input: served unbatched (each request whole), answers equal session.run row by row", async () => {
    const sizes = [2, 1, 3];
    const gains = [0.5, 1.25, 2];
    const answers = await Promise.all(sizes.map((rows, k) => infer(agents[1]!, k, rows, gains[k])));
    for (const [k, rows] of sizes.entries()) {
      expect(answers[k]!.status).toBe(200);
      for (let r = 0; r < rows; r++) {
        const expected = await oneRow(sessions[1]!, k, rows, r, gains[k]);
        const got = rowOf(answers[k]!.body, rows, r);
        expectClose(got.y, expected.y);
        expectClose(got.hN, expected.hN);
      }
    }
  }, 60_000);

  it("a plan with b > 1 for the unbatchable model is refused, naming the tensor", async () => {
    const status = await applyPlan(
      agents[1]!,
      { instances: [{ count: 1, threads: 1, batch: 4 }], batchTimeoutMs: 0 },
      2,
    );
    expect(status.lastReconfiguration.outcome).toBe("failed");
    expect(status.lastReconfiguration.error).toContain('input "gain" [] has no batch axis');
    // The old plan keeps serving.
    expect((await infer(agents[1]!, 9, 1, 1)).status).toBe(200);
  }, 60_000);
});
