// The supervisor with its real serving process (tiny CNN on ONNX Runtime), real sockets, on a port it picks itself
// (AGENT_PORT=0). A restart is held open on purpose by breaking the serving configuration before the SIGKILL (the
// new processes fail to start) and mending it when the test has what it needs: no assumption on how long a
// restart takes.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { Prng } from "@packrat/core/stats/prng";
import type { ServingConfig } from "./serving-config";
import { ServingSupervisor } from "./serving-supervisor";
import { waitFor } from "./test-agent-process";
import { testEnv } from "../../../test/test-env";

const model = buildTinyCnn({ seed: 9, producerVersion: "packrat-test" });
const ROW = 3 * 32 * 32;
let reference: ort.InferenceSession;
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanups.splice(0).reverse()) await step();
});
beforeAll(async () => {
  reference = await ort.InferenceSession.create(Buffer.from(model));
});

function input(k: number): Float32Array {
  const random = new Prng(500 + k);
  return Float32Array.from({ length: ROW }, () => random.normal() * (k + 1));
}

interface Harness {
  supervisor: ServingSupervisor;
  configPath: string;
  config: ServingConfig;
}

async function startSupervisor(env: Record<string, string> = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "packrat-supervisor-test-"));
  const modelPath = join(dir, "tiny-cnn.onnx");
  writeFileSync(modelPath, model);
  const config: ServingConfig = {
    generation: 1,
    models: [
      {
        name: "tiny-cnn",
        version: "1",
        modelPath,
        plan: { instances: [{ count: 1, threads: 1, batch: 4 }], batchTimeoutMs: 2, warmupIterations: 1 },
      },
    ],
  };
  const configPath = join(dir, "serving.json");
  writeFileSync(configPath, JSON.stringify(config));
  const supervisor = new ServingSupervisor({
    configPath,
    maxConsecutiveStartFailures: 1_000,
    log: () => {},
    // Held connections wait as long as a test keeps the restart from happening (10 s by default; a slow host).
    env: {
      ...testEnv,
      AGENT_HOST: "127.0.0.1",
      AGENT_PORT: "0",
      AGENT_STATE_DIR: join(dir, "state"),
      AGENT_HELD_CONNECTIONS_TIMEOUT_MS: "60000",
      ...env,
    },
  });
  cleanups.push(async () => {
    await supervisor.stop(10_000);
    rmSync(dir, { recursive: true, force: true });
  });
  const ready = new Promise<void>((done) => {
    supervisor.onReady = done;
  });
  supervisor.start();
  await ready;
  return { supervisor, configPath, config };
}

/** One request on a connection of its own (no keep-alive pool), so each counts as one accepted connection. */
function infer(port: number, k: number): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const body = JSON.stringify({
    inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: Array.from(input(k)) }],
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port,
        path: "/v2/models/tiny-cnn/infer",
        method: "POST",
        agent: false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => {
          text += d;
        });
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

async function expectRightLogits(body: string, k: number): Promise<void> {
  const want = (await reference.run({ input: new ort.Tensor("float32", input(k), [1, 3, 32, 32]) })).logits!
    .data as Float32Array;
  const got = (JSON.parse(body) as { outputs: Array<{ data: number[] }> }).outputs[0]!.data;
  expect(got.length).toBe(want.length);
  got.forEach((v, i) => expect(Math.abs(v - want[i]!)).toBeLessThanOrEqual(1e-5 + 1e-4 * Math.abs(want[i]!)));
}

/** SIGKILLs the serving process with the configuration broken, so no new one becomes ready until `mend()`. */
async function killAndHoldRestart(h: Harness): Promise<{ mend: () => void }> {
  writeFileSync(h.configPath, "{ not json");
  process.kill(h.supervisor.servingPid!, "SIGKILL");
  await waitFor(
    async () => (h.supervisor.serving ? undefined : true),
    60_000,
    "the supervisor to see the serving process die",
  );
  return { mend: () => writeFileSync(h.configPath, JSON.stringify(h.config)) };
}

describe("ServingSupervisor: one listener for the agent's life", () => {
  it("listens on a port it picked (AGENT_PORT=0), keeps it across a SIGKILL, and answers what arrived during the restart once the new process is ready", async () => {
    const h = await startSupervisor();
    const port = h.supervisor.port!;
    expect(port).toBeGreaterThan(0);
    const first = await infer(port, 0);
    expect(first.status).toBe(200);
    await expectRightLogits(first.body, 0);
    const firstPid = h.supervisor.servingPid;

    const restart = await killAndHoldRestart(h);
    const during = [1, 2, 3, 4].map((k) => infer(port, k));
    await waitFor(
      async () => (h.supervisor.heldConnections.waiting === 4 ? true : undefined),
      60_000,
      "4 connections waiting",
    );
    restart.mend();
    const answers = await Promise.all(during);
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe(200);
      await expectRightLogits(answer.body, i + 1);
    }
    expect(h.supervisor.port).toBe(port);
    expect(h.supervisor.servingPid).not.toBe(firstPid);
    expect(h.supervisor.lastRestartHeldConnections).toBe(4);

    // The serving process reports the supervisor's figures: status and Prometheus.
    const status = await (await fetch(`http://127.0.0.1:${port}/agent/status`)).json();
    expect(status).toMatchObject({ lastRestartHeldConnections: 4, heldConnections: 4, shedConnections: 0 });
    expect(status.servingProcessRestarts).toBeGreaterThanOrEqual(1);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
    expect(metrics).toMatch(/^packrat_agent_held_connections_total 4$/m);
    expect(metrics).toMatch(/^packrat_agent_shed_connections_total 0$/m);
  });

  it("a serving process that dies the instant a connection is handed to it, before taking it, loses nothing: the next one answers it", async () => {
    const mark = join(mkdtempSync(join(tmpdir(), "packrat-handover-death-")), "died");
    cleanups.push(() => rmSync(dirname(mark), { recursive: true, force: true }));
    const h = await startSupervisor({ AGENT_FAULT_INJECTION: "true", AGENT_FAULT_EXIT_ON_CONNECTION_MARK: mark });
    const firstPid = h.supervisor.servingPid;
    // The first connection reaches the first serving process, which exits before it says it took it.
    const answer = await infer(h.supervisor.port!, 5);
    expect(existsSync(mark)).toBe(true);
    expect(Number(readFileSync(mark, "utf8"))).toBe(firstPid);
    expect(h.supervisor.servingPid).not.toBe(firstPid);
    expect(h.supervisor.restarts).toBe(1);
    // The connection waited, unread, for the restarted process, which answered it right.
    expect(answer.status).toBe(200);
    await expectRightLogits(answer.body, 5);
  });

  it("holds at most AGENT_HELD_CONNECTIONS_MAX connections: the one beyond is answered 503 with Retry-After", async () => {
    const h = await startSupervisor({ AGENT_HELD_CONNECTIONS_MAX: "2" });
    const port = h.supervisor.port!;
    const restart = await killAndHoldRestart(h);
    const during = [1, 2, 3].map((k) => infer(port, k));
    await waitFor(
      async () => (h.supervisor.heldConnections.shed === 1 ? true : undefined),
      60_000,
      "one connection shed",
    );
    expect(h.supervisor.heldConnections.waiting).toBe(2);
    restart.mend();
    const answers = await Promise.all(during);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 503]);
    const shed = answers.find((a) => a.status === 503)!;
    expect(shed.headers["retry-after"]).toBe("1");
    expect(JSON.parse(shed.body).error).toMatch(/restarting/);
  });

  it("stop: connections waiting are answered 503, then the port is closed (refused)", async () => {
    const h = await startSupervisor();
    const port = h.supervisor.port!;
    await killAndHoldRestart(h);
    const waiting = infer(port, 1);
    await waitFor(
      async () => (h.supervisor.heldConnections.waiting === 1 ? true : undefined),
      60_000,
      "1 connection waiting",
    );
    await h.supervisor.stop(10_000);
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body).error).toMatch(/shutting down/);
    const refused = await new Promise<string>((done) => {
      const socket = connect(port, "127.0.0.1");
      socket.on("connect", () => {
        socket.destroy();
        done("connected");
      });
      socket.on("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message));
    });
    expect(refused).toBe("ECONNREFUSED");
  });
});
