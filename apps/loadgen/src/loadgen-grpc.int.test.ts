// The load generator over gRPC (--protocol grpc) against the real agent serving the tiny CNN on AGENT_GRPC_PORT:
// the same schedule, outcomes and Server-Timing accounting as over HTTP.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { freePort, startAgent, type RunningAgent } from "../../agent/src/test-agent-process";
import { OipGrpcClient } from "./oip-grpc-client";
import { generateInputs } from "./oip-inputs";
import { runOpenLoop } from "./open-loop";
import type { LoadgenReport } from "./report";
import { buildSchedule } from "./schedule";

let agent: RunningAgent;
let grpcUrl: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "packrat-loadgen-grpc-test-"));
  const port = await freePort();
  grpcUrl = `http://127.0.0.1:${port}`;
  agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 7, producerVersion: "packrat-test" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 2 }], batchTimeoutMs: 1 },
    env: { AGENT_GRPC_PORT: String(port) },
  });
});

afterAll(async () => {
  await agent?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the CLI to completion (asynchronously: the agent under test runs in this process's event loop too). */
function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", resolve("apps/loadgen/src/cli.ts"), ...args], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("exit", (status) => done({ status, stdout, stderr }));
  });
}

describe("load generator over gRPC", () => {
  it("reads ModelMetadata and sends a constant 50/s for 2 s: every request answered, Server-Timing from the trailers", async () => {
    const client = new OipGrpcClient({ url: new URL(grpcUrl), model: "tiny-cnn", timeoutMs: 30_000 });
    try {
      const metadata = await client.modelMetadata();
      expect(metadata.inputs).toEqual([{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }]);
      const body = client.encode(generateInputs(metadata.inputs, { batch: 2, seed: 3 }));
      const schedule = buildSchedule(
        { kind: "constant", rate: 50 },
        { durationMs: 2000, seed: 1, maxRequests: 10_000 },
      );
      const result = await runOpenLoop({ schedule, send: () => client.send(body), maxInFlight: 100, warmupMs: 0 });
      expect(result.measured).toMatchObject({ ok: 100, dropped: 0, badResponses: 0 });
      expect(Object.keys(result.serverTiming).sort()).toEqual(["busy", "compute", "formation", "run"]);
      // A refusal is counted as the HTTP status its code stands for.
      const wrong = new OipGrpcClient({ url: new URL(grpcUrl), model: "no-such-model", timeoutMs: 30_000 });
      // The model's name travels in the request message, so the body is the other client's own.
      expect(await wrong.send(wrong.encode(generateInputs(metadata.inputs, { batch: 1, seed: 3 })))).toMatchObject({
        kind: "http_error",
        status: 404,
        detail: expect.stringMatching(/NOT_FOUND: unknown model "no-such-model"/),
      });
      wrong.close();
    } finally {
      client.close();
    }
  });

  it("the CLI's --protocol grpc writes a report that says so", async () => {
    const out = join(dir, "grpc.json");
    const run = await runCli([
      "--url",
      grpcUrl,
      "--protocol",
      "grpc",
      "--model",
      "tiny-cnn",
      "--rate",
      "40",
      "--duration",
      "1s",
      "--warmup",
      "200ms",
      "--out",
      out,
      "--quiet",
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/gRPC, raw tensors/);
    const report = JSON.parse(readFileSync(out, "utf8")) as LoadgenReport;
    expect(report).toMatchObject({ model: "tiny-cnn", mode: "open", config: { protocol: "grpc" } });
    expect(report.open!.measured.ok).toBe(report.open!.measured.intended);
    expect(report.open!.measured.ok).toBeGreaterThan(0);
  });
});
