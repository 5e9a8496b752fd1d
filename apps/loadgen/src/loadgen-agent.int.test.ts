// The load generator against the standalone agent serving the tiny CNN (real agent CLI, real ONNX Runtime, real
// HTTP). The schedule is asserted, not the wall clock.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { startAgent, type RunningAgent } from "../../agent/src/test-agent-process";
import { encodeInferRequest } from "./oip-body";
import { OipClient } from "./oip-client";
import { generateInputs } from "./oip-inputs";
import { runOpenLoop } from "./open-loop";
import type { LoadgenReport } from "./report";
import { buildSchedule, interArrivalStats } from "./schedule";

let agent: RunningAgent;
let client: OipClient;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "packrat-loadgen-test-"));
  agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 7, producerVersion: "packrat-test" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 1 }], batchTimeoutMs: 0 },
  });
  client = new OipClient({ url: new URL(agent.url), model: "tiny-cnn", timeoutMs: 30_000, maxSockets: 1000 });
});

afterAll(async () => {
  client?.close();
  await agent?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function sender(binary: boolean) {
  const metadata = await client.modelMetadata();
  const body = encodeInferRequest(generateInputs(metadata.inputs, { batch: 1, seed: 3 }), { binary });
  return (_index: number) => client.send(body);
}

describe("load generator against the agent (tiny CNN)", () => {
  it("reads the model's metadata and builds inputs from it: input [-1, 3, 32, 32] FP32 → [1, 3, 32, 32]", async () => {
    const metadata = await client.modelMetadata();
    expect(metadata.inputs).toEqual([{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }]);
    expect(generateInputs(metadata.inputs, { batch: 1, seed: 3 })[0]!.shape).toEqual([1, 3, 32, 32]);
  });

  it("constant 100/s for 3 s (JSON): 300 ± 1 requests, request k intended at exactly 10k ms and never sent before it", async () => {
    const schedule = buildSchedule({ kind: "constant", rate: 100 }, { durationMs: 3000, seed: 1, maxRequests: 10_000 });
    const result = await runOpenLoop({
      schedule,
      send: await sender(false),
      maxInFlight: 1000,
      warmupMs: 0,
      keepRecords: true,
    });
    const sent = result.records!.filter((r) => r.outcome !== "dropped");
    expect(Math.abs(sent.length - 300)).toBeLessThanOrEqual(1);
    result.records!.forEach((r, k) => {
      expect(r.intendedMs).toBe(10 * k);
      expect(r.sentMs!).toBeGreaterThanOrEqual(r.intendedMs);
    });
    expect(result.measured).toMatchObject({ ok: 300, dropped: 0, badResponses: 0 });
    // The agent says where the time went; the load generator keeps it.
    expect(Object.keys(result.serverTiming).sort()).toEqual(["busy", "compute", "formation", "run"]);
    expect(result.timeline.map((s) => s.intended)).toEqual([100, 100, 100]);
  });

  it("a Poisson run (binary, 200/s for 2 s): inter-arrival CV ≈ 1 in the schedule, and no request is sent early", async () => {
    const schedule = buildSchedule({ kind: "poisson", rate: 200 }, { durationMs: 2000, seed: 11, maxRequests: 10_000 });
    const result = await runOpenLoop({
      schedule,
      send: await sender(true),
      maxInFlight: 1000,
      warmupMs: 0,
      keepRecords: true,
    });
    // ~400 exponential gaps: the CV's standard error is about 1/√400 = 0.05, so [0.8, 1.2] is a 4σ band.
    const planned = interArrivalStats(schedule.offsetsMs);
    const actual = interArrivalStats(result.records!.map((r) => r.sentMs!));
    expect(planned.cv).toBeGreaterThan(0.8);
    expect(planned.cv).toBeLessThan(1.2);
    // Actual send times follow the schedule but never lead it; how closely they follow depends on how busy this
    // machine is (a starved event loop bunches sends), so their CV is reported, not asserted.
    result.records!.forEach((r) => expect(r.sentMs!).toBeGreaterThanOrEqual(r.intendedMs));
    console.log(
      `[loadgen] Poisson 200/s: planned inter-arrival CV ${planned.cv.toFixed(3)}, actual ${actual.cv.toFixed(3)}`,
    );
    expect(result.measured.ok).toBe(schedule.offsetsMs.length);
  });

  it("the CLI: an open run and a closed sweep, each writing its JSON report", () => {
    const cli = resolve("apps/loadgen/src/cli.ts");
    const openOut = join(dir, "open.json");
    const open = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        cli,
        "--url",
        agent.url,
        "--model",
        "tiny-cnn",
        "--rate",
        "50",
        "--pattern",
        "poisson",
        "--duration",
        "2s",
        "--warmup",
        "500ms",
        "--binary",
        "--out",
        openOut,
        "--quiet",
      ],
      { encoding: "utf8" },
    );
    expect(open.status, open.stderr).toBe(0);
    expect(open.stdout).toMatch(/latency from intended send \(ok\): p50/);
    const report = JSON.parse(readFileSync(openOut, "utf8")) as LoadgenReport;
    expect(report).toMatchObject({
      format: "packrat-loadgen/1",
      model: "tiny-cnn",
      mode: "open",
      config: { binary: true, warmupMs: 500 },
    });
    expect(report.open!.measured.ok).toBeGreaterThan(0);
    expect(report.open!.measured.ok).toBe(report.open!.measured.intended);
    expect(report.open!.timeline).toHaveLength(2);
    expect(report.open!.latency.histogram.length).toBeGreaterThan(0);

    const closedOut = join(dir, "closed.json");
    const closed = spawnSync(
      process.execPath,
      [
        "--import",
        "tsx",
        cli,
        "--url",
        agent.url,
        "--model",
        "tiny-cnn",
        "--mode",
        "closed",
        "--concurrency",
        "1,2",
        "--duration",
        "1s",
        "--out",
        closedOut,
        "--quiet",
      ],
      { encoding: "utf8" },
    );
    expect(closed.status, closed.stderr).toBe(0);
    const sweep = JSON.parse(readFileSync(closedOut, "utf8")) as LoadgenReport;
    expect(sweep.closed!.rows.map((r) => r.concurrency)).toEqual([1, 2]);
    expect(sweep.closed!.rows.every((r) => r.ok > 0 && r.errors === 0)).toBe(true);
  });

  it("the CLI refuses a remote target and an unknown model, saying why", () => {
    const cli = resolve("apps/loadgen/src/cli.ts");
    const remote = spawnSync(
      process.execPath,
      ["--import", "tsx", cli, "--url", "http://192.0.2.1:8000", "--model", "x", "--rate", "1"],
      { encoding: "utf8" },
    );
    expect(remote.status).toBe(2);
    expect(remote.stderr).toMatch(/--allow-remote 192\.0\.2\.1/);
    const unknown = spawnSync(
      process.execPath,
      ["--import", "tsx", cli, "--url", agent.url, "--model", "nope", "--rate", "1", "--quiet"],
      { encoding: "utf8" },
    );
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toMatch(/404/);
  });
});
