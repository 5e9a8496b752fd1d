// Issue #23, OIP fuzzing: the real agent (supervisor + serving process, tiny CNN on ⟨1 instance × 1 thread, b=4⟩)
// gets 10,000 malformed requests, nine classes, 16 in flight. Every one must be a 4xx with {"error": "..."}; the
// serving process must not crash; its RSS after 5 s idle must be within 64 MB of before; a body over the limit
// must be refused without being buffered; and good requests afterwards must match onnxruntime-node run directly.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ort from "onnxruntime-node";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { startAgent, type RunningAgent } from "../../../apps/agent/src/test-agent-process";
import { processMemory, servingSnapshot } from "./agent-probe";
import { fuzzPlan, judgeOipAnswer, runOipFuzz } from "./oip-fuzz-run";
import { goodTinyCnnRequest, TINY_CNN_OIP_SPEC } from "./oip-good-requests";
import { mutateOipRequest, OIP_FUZZ_CLASSES } from "./oip-mutator";
import { OIP_REGRESSIONS } from "./oip-regressions";
import { uploadOversizeBody } from "./oversize-upload";
import { sendRawHttp } from "./raw-http";

const model = buildTinyCnn({ seed: 7, producerVersion: "packrat-fuzz" });
const spec = TINY_CNN_OIP_SPEC;
const LIMIT = 16 * 1024 * 1024;
const MB = 1024 * 1024;
let agent: RunningAgent;
let port: number;
let reference: ort.InferenceSession;

/** One good request (JSON or binary both ways), answered and compared with session.run on the same input. */
async function goodRequest(seed: number, rows: number, binary: boolean): Promise<void> {
  const result = await goodTinyCnnRequest(agent.url, reference, seed, rows, binary);
  expect({ seed, rows, binary, status: result.status, close: result.close }).toEqual({
    seed,
    rows,
    binary,
    status: 200,
    close: true,
  });
}

beforeAll(async () => {
  reference = await ort.InferenceSession.create(Buffer.from(model));
  agent = await startAgent({
    modelBytes: model,
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 4 }], batchTimeoutMs: 2 },
    env: { AGENT_MAX_BODY_BYTES: String(LIMIT) },
  });
  port = Number(new URL(agent.url).port);
  // Warm: instances, JIT of the parse path, the HTTP server's pools. The "before" figures are taken after this.
  for (let k = 0; k < 8; k++) await goodRequest(k, 1 + (k % 3), k % 2 === 0);
});

afterAll(async () => {
  await agent?.stop();
  await reference?.release();
});

describe("OIP fuzzing against a live agent (issue #23)", () => {
  it("replays every seed that once found a bug: each is now a 4xx with a JSON error", async () => {
    for (const regression of OIP_REGRESSIONS) {
      const request = mutateOipRequest(regression.cls, regression.seed, spec);
      const { verdict, detail } = judgeOipAnswer(await sendRawHttp(port, request));
      expect({ ...regression, verdict, detail: verdict === "pass" ? "" : detail }).toEqual({
        ...regression,
        verdict: "pass",
        detail: "",
      });
    }
  });

  it("refuses a body of twice the limit with 413 before reading it: the serving process's RSS does not grow by it", async () => {
    const { pid } = await servingSnapshot(agent.url);
    const before = processMemory(pid);
    let peak = before.rss;
    const upload = await uploadOversizeBody({
      port,
      path: "/v2/models/tiny-cnn/infer",
      bytes: 2 * LIMIT,
      declareLength: true,
      sample: () => {
        peak = Math.max(peak, processMemory(pid).rss);
      },
    });
    expect(upload.response?.status).toBe(413);
    expect(JSON.parse(upload.response!.body.toString())).toEqual({
      error: expect.stringMatching(/exceeds 16777216 bytes/),
    });
    // The answer came while the upload was still going: the server cannot have held the body.
    expect(upload.sentBytes).toBeLessThan(2 * LIMIT);
    const after = processMemory(pid);
    // A buffered 32 MiB body would add ≥ 32 MiB of RSS (sampled between 1 MiB pieces) and of the peak (VmHWM);
    // half the body is the line (the few MiB the client sent before the answer are read and dropped).
    expect(peak - before.rss).toBeLessThan(LIMIT);
    expect(after.peak - Math.max(before.peak, before.rss)).toBeLessThan(LIMIT);
  });

  it("answers 10,000 malformed requests (9 classes, 16 in flight) with 4xx + JSON error; no crash; RSS after 5 s idle within 64 MB", async () => {
    const start = await servingSnapshot(agent.url);
    const rssBefore = processMemory(start.pid).rss;
    const report = await runOipFuzz({ port, model: spec, cases: fuzzPlan(10_000, 1), concurrency: 16 });
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const end = await servingSnapshot(agent.url);
    const rssAfter = processMemory(end.pid).rss;

    // Findings first, so a failure names its (class, seed) to replay.
    expect(report.findings.slice(0, 10)).toEqual([]);
    expect(report.tried).toBe(10_000);
    for (const cls of OIP_FUZZ_CLASSES) {
      const counts = report.perClass[cls];
      expect({ cls, tried: counts.tried, status4xx: counts.status4xx }).toEqual({
        cls,
        tried: counts.tried,
        status4xx: counts.tried,
      });
      expect(counts.tried).toBeGreaterThanOrEqual(1_111); // 10,000 / 9, round robin
    }
    // The serving process is the same one (no crash, no restart), and its memory came back.
    expect(end).toEqual(start);
    expect(Math.abs(rssAfter - rssBefore)).toBeLessThan(64 * MB);
  }, 0); // no time limit: a hang is a finding, and a slow shared machine is not

  it("serves good requests correctly afterwards (JSON and binary, 1–5 rows, checked against session.run)", async () => {
    const before = await servingSnapshot(agent.url);
    await Promise.all(
      [1, 2, 3, 4, 5].flatMap((rows) => [goodRequest(100 + rows, rows, false), goodRequest(200 + rows, rows, true)]),
    );
    expect(await servingSnapshot(agent.url)).toEqual(before);
  });
});
