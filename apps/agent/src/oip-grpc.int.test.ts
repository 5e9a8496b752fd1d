// The Open Inference Protocol over gRPC, as a KServe v2 client sees it: a grpc-js client built from the
// specification's messages (src/contracts/grpc-predict-v2.proto) against a real agent (supervisor + serving process,
// real ONNX Runtime) serving the tiny CNN. The answers are HTTP's answers, and the gRPC port keeps serving across a
// live reconfiguration and a serving-process restart.
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Prng } from "@packrat/core/stats/prng";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { recordSecret } from "../../../test/secrets-list";
import { OIP_PROTO_PATH } from "@packrat/contracts/oip-grpc";
import { freePort, startAgent, waitFor, type RunningAgent } from "./test-agent-process";

const ROW = 3 * 32 * 32;
const model = buildTinyCnn({ seed: 21, producerVersion: "packrat-test" });
const token = `infer-${randomBytes(24).toString("base64url")}`;
let agent: RunningAgent;
let client: grpc.Client;
let reference: ort.InferenceSession;

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- messages as proto-loader decodes them, read field by field
type Message = Record<string, any>;
type Unary = (
  request: Message,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response: Message) => void,
) => grpc.ClientUnaryCall;

// waitForReady: a call waits for the channel to (re)connect rather than failing while no connection is up.
const authorized = () => {
  const m = new grpc.Metadata({ waitForReady: true });
  m.set("authorization", `Bearer ${token}`);
  return m;
};

/** One RPC; resolves with the response, or with the error (its code, details and trailers). */
function call(
  method: string,
  request: Message,
  metadata = authorized(),
  deadlineMs = 60_000,
): Promise<{ response?: Message; error?: grpc.ServiceError }> {
  return new Promise((resolve) => {
    const rpc = (client as unknown as Record<string, Unary>)[method]!.bind(client);
    rpc(request, metadata, { deadline: Date.now() + deadlineMs }, (error, response) =>
      resolve(error ? { error } : { response }),
    );
  });
}

function requestData(k: number, rows: number): Float32Array {
  const random = new Prng(500 + k);
  const data = new Float32Array(rows * ROW);
  for (let i = 0; i < data.length; i++) data[i] = random.normal() * (k + 1);
  return data;
}

const rawInfer = (data: Float32Array, rows: number, extra: Message = {}) =>
  call("ModelInfer", {
    model_name: "tiny-cnn",
    id: `grpc-${rows}`,
    inputs: [{ name: "input", datatype: "FP32", shape: [rows, 3, 32, 32] }],
    raw_input_contents: [Buffer.from(data.buffer, data.byteOffset, data.byteLength)],
    ...extra,
  });

function logitsOf(response: Message): Float32Array {
  const raw = response.raw_output_contents[0] as Buffer;
  return new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.length));
}

async function direct(data: Float32Array, rows: number): Promise<Float32Array> {
  return (await reference.run({ input: new ort.Tensor("float32", data, [rows, 3, 32, 32]) })).logits!
    .data as Float32Array;
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>) {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++)
    expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(1e-5 + 1e-4 * Math.abs(expected[i]!));
}

const httpGet = async (path: string) =>
  (await fetch(`${agent.url}${path}`, { headers: { authorization: `Bearer ${token}` } })).json();

beforeAll(async () => {
  recordSecret("inference token", token);
  reference = await ort.InferenceSession.create(Buffer.from(model));
  const grpcPort = await freePort();
  agent = await startAgent({
    modelBytes: model,
    name: "tiny-cnn",
    plan: { instances: [{ count: 2, threads: 1, batch: 4 }], batchTimeoutMs: 5 },
    // Held connections wait up to 60 s: on a loaded 2-core host a serving process can take longer than the default 10 s
    // to come back, and a connection shed then is not what the restart test looks at.
    env: {
      AGENT_GRPC_PORT: String(grpcPort),
      AGENT_INFER_TOKEN: token,
      AGENT_MAX_QUEUE: "64",
      AGENT_FAULT_INJECTION: "true",
      AGENT_HELD_CONNECTIONS_TIMEOUT_MS: "60000",
    },
  });
  const loaded = grpc.loadPackageDefinition(
    protoLoader.loadSync(OIP_PROTO_PATH, { keepCase: true, longs: Number, defaults: true, oneofs: true }),
  );
  const Service = (loaded.inference as grpc.GrpcObject).GRPCInferenceService as grpc.ServiceClientConstructor;
  client = new Service(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
});

afterAll(async () => {
  client?.close();
  await agent?.stop();
  await reference?.release();
});

describe("OIP over gRPC", () => {
  it("answers health and metadata as HTTP does", async () => {
    expect((await call("ServerLive", {})).response).toEqual({ live: true });
    expect((await call("ServerReady", {})).response).toEqual({ ready: true });
    expect((await call("ModelReady", { name: "tiny-cnn", version: "" })).response).toEqual({ ready: true });
    expect((await call("ModelReady", { name: "nope" })).error?.code).toBe(grpc.status.NOT_FOUND);
    expect((await call("ServerMetadata", {})).response).toEqual({
      name: "packrat-agent",
      version: expect.any(String),
      extensions: [],
    });
    const meta = (await call("ModelMetadata", { name: "tiny-cnn" })).response!;
    expect(meta).toEqual(await httpGet("/v2/models/tiny-cnn"));
    expect((await call("ModelMetadata", { name: "tiny-cnn", version: "9" })).error?.code).toBe(grpc.status.NOT_FOUND);
  });

  it("infers with raw_input_contents: concurrent requests of different sizes get their own rows, as HTTP answers them", async () => {
    const sizes = [1, 3, 2, 5, 4, 1, 7];
    const datas = sizes.map((rows, k) => requestData(k, rows));
    const results = await Promise.all(sizes.map((rows, k) => rawInfer(datas[k]!, rows)));
    for (const [k, rows] of sizes.entries()) {
      const { response, error } = results[k]!;
      expect(error).toBeUndefined();
      expect(response).toMatchObject({
        model_name: "tiny-cnn",
        model_version: "1",
        id: `grpc-${rows}`,
        outputs: [{ name: "logits", datatype: "FP32", shape: [rows, 10] }],
      });
      expectClose(logitsOf(response!), await direct(datas[k]!, rows));
    }
    // The same request over HTTP (binary tensor data) gets the same numbers.
    const data = requestData(0, 3);
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          { name: "input", shape: [3, 3, 32, 32], datatype: "FP32", parameters: { binary_data_size: data.byteLength } },
        ],
        parameters: { binary_data_output: true },
      }),
    );
    const http = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      body: Buffer.concat([header, Buffer.from(data.buffer)]) as BodyInit,
      headers: { authorization: `Bearer ${token}`, "inference-header-content-length": String(header.length) },
    });
    const raw = Buffer.from(await http.arrayBuffer());
    const n = Number(http.headers.get("inference-header-content-length"));
    const tail = raw.subarray(n);
    const viaHttp = new Float32Array(tail.buffer.slice(tail.byteOffset, tail.byteOffset + tail.length));
    expectClose(logitsOf((await rawInfer(data, 3)).response!), viaHttp);
  });

  it("infers with typed contents (fp32_contents) too, and a requested output by name", async () => {
    const data = requestData(3, 2);
    const { response, error } = await call("ModelInfer", {
      model_name: "tiny-cnn",
      model_version: "1",
      inputs: [
        { name: "input", datatype: "FP32", shape: [2, 3, 32, 32], contents: { fp32_contents: Array.from(data) } },
      ],
      outputs: [{ name: "logits" }],
    });
    expect(error).toBeUndefined();
    expectClose(logitsOf(response!), await direct(data, 2));
  });

  it("maps every refusal to its gRPC status with the HTTP server's message", async () => {
    const one = requestData(1, 1);
    const cases: Array<[Promise<{ error?: grpc.ServiceError }>, grpc.status, RegExp]> = [
      [rawInfer(one, 1, { model_name: "nope" }), grpc.status.NOT_FOUND, /unknown model "nope"/],
      [
        rawInfer(one, 1, { inputs: [{ name: "input", datatype: "INT32", shape: [1, 3, 32, 32] }] }),
        grpc.status.INVALID_ARGUMENT,
        /datatype INT32, the model expects FP32/,
      ],
      [
        rawInfer(one, 1, { inputs: [{ name: "input", datatype: "FP32", shape: [2, 3, 32, 32] }] }),
        grpc.status.INVALID_ARGUMENT,
        /raw_input_contents\[0\] has 12288 bytes, shape \[2,3,32,32\] of FP32 needs 24576/,
      ],
      [
        rawInfer(one, 1, { raw_input_contents: [Buffer.from(one.buffer), Buffer.alloc(4)] }),
        grpc.status.INVALID_ARGUMENT,
        /raw_input_contents has 2 entries for 1 inputs/,
      ],
      [
        call("ModelInfer", {
          model_name: "tiny-cnn",
          inputs: [{ name: "input", datatype: "FP32", shape: [1, 3, 32, 32] }],
        }),
        grpc.status.INVALID_ARGUMENT,
        /neither contents nor raw_input_contents/,
      ],
      [rawInfer(one, 1, {}).then(() => rawInfer(requestData(2, 65), 65)), grpc.status.UNAVAILABLE, /queue full/],
      [
        rawInfer(one, 1, { parameters: { packrat_fault: { string_param: "throw" } } }),
        grpc.status.UNAVAILABLE,
        /crashed/,
      ],
      [
        rawInfer(one, 1, { parameters: { deadline_ms: { int64_param: -1 } } }),
        grpc.status.INVALID_ARGUMENT,
        /deadline_ms must be a positive number/,
      ],
    ];
    for (const [pending, code, message] of cases) {
      const { error } = await pending;
      expect({ code: error?.code, details: error?.details }).toEqual({ code, details: expect.stringMatching(message) });
    }
    const full = await rawInfer(requestData(2, 65), 65);
    expect(Number(full.error?.metadata.get("retry-after")[0])).toBeGreaterThan(0);
  });

  it("answers a W3C traceparent with a traceresponse trailer in the same trace, and Server-Timing", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const traced = authorized();
    traced.set("traceparent", `00-${traceId}-00f067aa0ba902b7-01`);
    const trailers = await new Promise<grpc.Metadata>((resolve) => {
      const rpc = (client as unknown as Record<string, Unary>).ModelInfer!.bind(client);
      const data = requestData(9, 1);
      const pending = rpc(
        {
          model_name: "tiny-cnn",
          inputs: [{ name: "input", datatype: "FP32", shape: [1, 3, 32, 32] }],
          raw_input_contents: [Buffer.from(data.buffer)],
        },
        traced,
        { deadline: Date.now() + 60_000 },
        () => {},
      );
      pending.on("status", (status: grpc.StatusObject) => resolve(status.metadata));
    });
    expect(String(trailers.get("traceresponse")[0])).toMatch(
      new RegExp(`^00-${traceId}-(?!00f067aa0ba902b7)[0-9a-f]{16}-01$`),
    );
    expect(String(trailers.get("server-timing")[0])).toMatch(/formation;dur=.*busy;dur=.*compute;dur=.*run;dur=/);
  });

  it("needs the inference token in the authorization metadata; no batch runs without it", async () => {
    const executions = async () =>
      Number(
        /^packrat_executions_total\{model="tiny-cnn",version="1"\} (\d+)/m.exec(
          await (await fetch(`${agent.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text(),
        )?.[1] ?? 0,
      );
    const before = await executions();
    const wrong = (value?: string) => {
      const m = new grpc.Metadata();
      if (value !== undefined) m.set("authorization", value);
      return m;
    };
    for (const metadata of [wrong(), wrong(`Bearer ${token}x`), wrong(token), wrong(`Basic ${token}`)]) {
      const { error } = await call(
        "ModelInfer",
        {
          model_name: "tiny-cnn",
          inputs: [{ name: "input", datatype: "FP32", shape: [1, 3, 32, 32] }],
          raw_input_contents: [Buffer.alloc(ROW * 4)],
        },
        metadata,
      );
      expect(error?.code).toBe(grpc.status.UNAUTHENTICATED);
    }
    expect(await executions()).toBe(before);
    expect(agent.output()).not.toContain(token);
  });

  it('counts gRPC requests in the same metrics and statistics as HTTP, labelled protocol="grpc"', async () => {
    const text = await (await fetch(`${agent.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(text).toMatch(/^packrat_requests_total\{model="tiny-cnn",version="1",protocol="grpc",status="200"\} [1-9]/m);
    expect(text).toMatch(/^packrat_requests_total\{model="tiny-cnn",version="1",protocol="grpc",status="401"\} 4$/m);
    expect(text).toMatch(/^packrat_requests_total\{model="tiny-cnn",version="1",protocol="http",status="200"\} 1$/m);
    expect(text).toMatch(/^packrat_request_seconds_count\{model="tiny-cnn",version="1",protocol="grpc"\} [1-9]/m);
    const stats = (await httpGet("/v2/models/tiny-cnn/stats")).model_stats[0];
    expect(stats.inference_stats.success.count).toBeGreaterThanOrEqual(10);
  });

  it("keeps answering across a live reconfiguration to another plan", async () => {
    let running = true;
    const outcomes: Array<{
      rows: number;
      data: Float32Array;
      result: { response?: Message; error?: grpc.ServiceError };
    }> = [];
    const loop = async (k: number) => {
      for (let i = 0; running; i++) {
        const rows = 1 + ((i + k) % 3);
        const data = requestData(100 + k * 1000 + i, rows);
        outcomes.push({ rows, data, result: await rawInfer(data, rows) });
      }
    };
    const loops = [0, 1, 2].map(loop);
    // SIGHUP re-reads the plan (as applyPlan does, polling with the token: /agent/status needs it here).
    writeFileSync(
      join(agent.dir, "plan.json"),
      JSON.stringify({ instances: [{ count: 1, threads: 2, batch: 8 }], batchTimeoutMs: 2 }),
    );
    agent.process.kill("SIGHUP");
    const status = await waitFor(
      async () => {
        const served = (await httpGet("/agent/status")).models[0];
        return served.lastReconfiguration?.generation === 2 ? served : undefined;
      },
      60_000,
      "generation 2",
    );
    expect(status.lastReconfiguration).toMatchObject({ generation: 2, outcome: "applied", kind: "active-passive" });
    await new Promise((r) => setTimeout(r, 200)); // a few batches on the new instance set
    running = false;
    await Promise.all(loops);
    expect(outcomes.length).toBeGreaterThan(10);
    expect(outcomes.filter((o) => o.result.error).map((o) => o.result.error!.details)).toEqual([]);
    for (const o of outcomes) expectClose(logitsOf(o.result.response!), await direct(o.data, o.rows));
  });

  it("after a serving-process restart, calls wait on the held connection and are answered by the new process", async () => {
    const before = await httpGet("/agent/status");
    process.kill(before.pid, "SIGKILL");
    // The old process is gone (its connections with it); the next calls reconnect, and the supervisor holds them.
    await waitFor(
      async () => {
        try {
          process.kill(before.pid, 0);
          return undefined;
        } catch {
          return true;
        }
      },
      30_000,
      "the serving process to die",
    );
    const datas = [0, 1, 2, 3].map((k) => requestData(200 + k, 2));
    const results = await Promise.all(datas.map((data) => rawInfer(data, 2)));
    for (const [k, { response, error }] of results.entries()) {
      expect(error?.details).toBeUndefined();
      expectClose(logitsOf(response!), await direct(datas[k]!, 2));
    }
    const after = await httpGet("/agent/status");
    expect(after.pid).not.toBe(before.pid);
    expect(after.servingProcessRestarts).toBe(before.servingProcessRestarts + 1);
    expect(after.heldConnections).toBeGreaterThan(before.heldConnections);
  });

  it("drains on SIGTERM: queued gRPC calls are answered, then the agent exits 0", async () => {
    // A second agent whose batches wait 60 s to fill: the calls sit in the queue until SIGTERM flushes them.
    const port = await freePort();
    const slow = await startAgent({
      modelBytes: model,
      name: "tiny-cnn",
      plan: { instances: [{ count: 1, threads: 1, batch: 64 }], batchTimeoutMs: 60_000 },
      env: { AGENT_GRPC_PORT: String(port) },
    });
    const Service = client.constructor as grpc.ServiceClientConstructor;
    const slowClient = new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    try {
      const datas = [0, 1, 2, 3].map((k) => requestData(300 + k, 2));
      const pending = datas.map(
        (data) =>
          new Promise<{ response?: Message; error?: grpc.ServiceError }>((resolve) => {
            const rpc = (slowClient as unknown as Record<string, Unary>).ModelInfer!.bind(slowClient);
            rpc(
              {
                model_name: "tiny-cnn",
                inputs: [{ name: "input", datatype: "FP32", shape: [2, 3, 32, 32] }],
                raw_input_contents: [Buffer.from(data.buffer)],
              },
              new grpc.Metadata({ waitForReady: true }),
              { deadline: Date.now() + 60_000 },
              (error, response) => resolve(error ? { error } : { response }),
            );
          }),
      );
      await waitFor(
        async () =>
          (await (await fetch(`${slow.url}/agent/status`)).json()).models[0].queueRows === 8 ? true : undefined,
        30_000,
        "8 queued rows",
      );
      const code = await slow.stop();
      const results = await Promise.all(pending);
      expect(results.map((r) => r.error?.details)).toEqual([undefined, undefined, undefined, undefined]);
      for (const [k, r] of results.entries()) expectClose(logitsOf(r.response!), await direct(datas[k]!, 2));
      expect(code).toBe(0);
    } finally {
      slowClient.close();
      await slow.stop();
    }
  });
});
