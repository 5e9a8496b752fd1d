// The agent as a client sees it: real ONNX Runtime, real HTTP, requests written from the Open Inference Protocol
// spec. Tiny CNN served as ⟨2 instances × 1 thread, b = 4⟩ on this 2-core host (B = 8, 5 ms batch timeout).
import { readdirSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import * as ort from "onnxruntime-node";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { Prng } from "@packrat/core/stats/prng";
import { startAgent, waitFor, type RunningAgent } from "./test-agent-process";

const model = buildTinyCnn({ seed: 7, producerVersion: "packrat-test" });
const ROW = 3 * 32 * 32;
let agent: RunningAgent;
let reference: ort.InferenceSession;

/** Request k's rows: N(0,1) noise scaled by (k + 1), so different requests' outputs differ by far more than 1e-4. */
function requestData(k: number, rows: number): Float32Array {
  const random = new Prng(1000 + k);
  const data = new Float32Array(rows * ROW);
  for (let i = 0; i < data.length; i++) data[i] = random.normal() * (k + 1);
  return data;
}

async function direct(data: Float32Array, rows: number): Promise<Float32Array> {
  const out = await reference.run({ input: new ort.Tensor("float32", data, [rows, 3, 32, 32]) });
  return out.logits!.data as Float32Array;
}

async function inferJson(data: Float32Array, rows: number, extra: Record<string, unknown> = {}) {
  const response = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      id: `req-${rows}`,
      inputs: [{ name: "input", shape: [rows, 3, 32, 32], datatype: "FP32", data: Array.from(data) }],
      ...extra,
    }),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- an OIP response body, read field by field below
  return { status: response.status, body: (await response.json()) as Record<string, any>, headers: response.headers };
}

function binaryBody(header: object, payload: Uint8Array): { body: Buffer; headerLength: number } {
  const json = Buffer.from(JSON.stringify(header));
  return { body: Buffer.concat([json, payload]), headerLength: json.length };
}

function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number>) {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    expect(Math.abs(actual[i]! - expected[i]!)).toBeLessThanOrEqual(1e-5 + 1e-4 * Math.abs(expected[i]!));
  }
}

beforeAll(async () => {
  reference = await ort.InferenceSession.create(Buffer.from(model));
  agent = await startAgent({
    modelBytes: model,
    name: "tiny-cnn",
    plan: { instances: [{ count: 2, threads: 1, batch: 4 }], batchTimeoutMs: 5 },
    env: { AGENT_FAULT_INJECTION: "true", AGENT_MAX_QUEUE: "64", AGENT_MAX_BODY_BYTES: String(4 * 1024 * 1024) },
  });
});

afterAll(async () => {
  await agent?.stop();
  await reference?.release();
});

describe("agent data plane", () => {
  it("serves OIP metadata, health, server metadata and the repository index", async () => {
    const meta = await (await fetch(`${agent.url}/v2/models/tiny-cnn`)).json();
    expect(meta).toEqual({
      name: "tiny-cnn",
      versions: ["1"],
      platform: "onnx_onnxv1",
      inputs: [{ name: "input", datatype: "FP32", shape: [-1, 3, 32, 32] }],
      outputs: [{ name: "logits", datatype: "FP32", shape: [-1, 10] }],
    });
    expect((await fetch(`${agent.url}/v2/health/live`)).status).toBe(200);
    expect((await fetch(`${agent.url}/v2/health/ready`)).status).toBe(200);
    expect((await fetch(`${agent.url}/v2/models/tiny-cnn/ready`)).status).toBe(200);
    expect(await (await fetch(`${agent.url}/v2`)).json()).toEqual({
      name: "packrat-agent",
      version: expect.any(String),
      extensions: ["binary_tensor_data", "model_configuration", "statistics"],
    });
    const index = await (await fetch(`${agent.url}/v2/repository/index`, { method: "POST", body: "{}" })).json();
    expect(index).toEqual([{ name: "tiny-cnn", version: "1", state: "READY", reason: "" }]);
  });

  it("gives concurrent requests of different sizes exactly their own rows", async () => {
    const sizes = [1, 3, 2, 5, 4, 1, 7, 2, 11];
    const datas = sizes.map((rows, k) => requestData(k, rows));
    const responses = await Promise.all(sizes.map((rows, k) => inferJson(datas[k]!, rows)));
    for (const [k, rows] of sizes.entries()) {
      const { status, body } = responses[k]!;
      expect(status).toBe(200);
      expect(body.model_name).toBe("tiny-cnn");
      expect(body.id).toBe(`req-${rows}`);
      expect(body.outputs[0].shape).toEqual([rows, 10]);
      expectClose(body.outputs[0].data, await direct(datas[k]!, rows));
    }
    // The scaled inputs make requests' outputs differ far beyond the tolerance, so a swap could not pass.
    const a = await direct(requestData(0, 1), 1);
    const b = await direct(requestData(5, 1), 1);
    expect(Math.max(...a.map((v, i) => Math.abs(v - b[i]!)))).toBeGreaterThan(1e-2);
  });

  it("accepts binary tensors and returns binary outputs when asked", async () => {
    const rows = 3;
    const data = requestData(42, rows);
    const { body, headerLength } = binaryBody(
      {
        inputs: [
          {
            name: "input",
            shape: [rows, 3, 32, 32],
            datatype: "FP32",
            parameters: { binary_data_size: data.byteLength },
          },
        ],
        outputs: [{ name: "logits", parameters: { binary_data: true } }],
      },
      new Uint8Array(data.buffer),
    );
    const response = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      body: body as BodyInit,
      headers: { "inference-header-content-length": String(headerLength), "content-type": "application/octet-stream" },
    });
    expect(response.status).toBe(200);
    const raw = Buffer.from(await response.arrayBuffer());
    const n = Number(response.headers.get("inference-header-content-length"));
    const header = JSON.parse(raw.subarray(0, n).toString());
    expect(header.outputs[0]).toMatchObject({ name: "logits", shape: [3, 10], parameters: { binary_data_size: 120 } });
    const tail = raw.subarray(n);
    const values = new Float32Array(tail.buffer.slice(tail.byteOffset, tail.byteOffset + tail.length));
    expectClose(values, await direct(data, rows));
  });

  it("decodes a chunked binary upload whose pieces split the header, the header/tensor boundary and a value", async () => {
    const rows = 2;
    const data = requestData(43, rows);
    const { body, headerLength } = binaryBody(
      {
        inputs: [
          {
            name: "input",
            shape: [rows, 3, 32, 32],
            datatype: "FP32",
            parameters: { binary_data_size: data.byteLength },
          },
        ],
        outputs: [{ name: "logits", parameters: { binary_data: true } }],
      },
      new Uint8Array(data.buffer),
    );
    // No Content-Length: the binary block's size is known only at the end.
    const cuts = [0, 5, headerLength - 1, headerLength + 2, headerLength + 4097, body.length];
    const url = new URL(agent.url);
    const socket = connect(Number(url.port), url.hostname);
    const answer = new Promise<Buffer>((done) => {
      const got: Buffer[] = [];
      socket.on("data", (d: Buffer) => got.push(d));
      socket.on("end", () => done(Buffer.concat(got)));
    });
    socket.write(
      `POST /v2/models/tiny-cnn/infer HTTP/1.1\r\nhost: agent\r\nconnection: close\r\ncontent-type: application/octet-stream\r\n` +
        `inference-header-content-length: ${headerLength}\r\ntransfer-encoding: chunked\r\n\r\n`,
    );
    for (let i = 1; i < cuts.length; i++) {
      const piece = body.subarray(cuts[i - 1], cuts[i]);
      await new Promise((done) =>
        socket.write(
          Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n")]),
          done,
        ),
      );
    }
    socket.write("0\r\n\r\n");
    const raw = await answer;
    const split = raw.indexOf("\r\n\r\n");
    const head = raw.subarray(0, split).toString();
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const n = Number(/inference-header-content-length: (\d+)/i.exec(head)![1]);
    const payload = raw.subarray(split + 4);
    const tail = payload.subarray(n);
    expectClose(
      new Float32Array(tail.buffer.slice(tail.byteOffset, tail.byteOffset + tail.length)),
      await direct(data, rows),
    );
  });

  it("answers a W3C traceparent with a traceresponse in the same trace (a span of its own), on success and refusal", async () => {
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
    const traceparent = `00-${traceId}-00f067aa0ba902b7-01`;
    const data = requestData(8, 1);
    const ok = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      headers: { "content-type": "application/json", traceparent },
      body: JSON.stringify({
        inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: Array.from(data) }],
      }),
    });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("traceresponse")).toMatch(new RegExp(`^00-${traceId}-(?!00f067aa0ba902b7)[0-9a-f]{16}-01$`));
    expect(ok.headers.get("server-timing")).toMatch(/formation;dur=.*busy;dur=.*compute;dur=.*run;dur=/);
    await ok.body?.cancel();
    const refused = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      headers: { traceparent },
      body: "{",
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get("traceresponse")).toMatch(new RegExp(`^00-${traceId}-`));
    await refused.body?.cancel();
    // Malformed or absent: untraced, no traceresponse.
    const untraced = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      headers: { traceparent: "00-xyz" },
      body: "{",
    });
    expect(untraced.headers.get("traceresponse")).toBeNull();
    await untraced.body?.cancel();
  });

  it("pins every thread of every instance to its own CPUs and reports it", async () => {
    const status = await (await fetch(`${agent.url}/agent/status`)).json();
    const served = status.models[0];
    expect(served.affinityOk).toBe(true);
    const cpus = served.instances.map((i: { cpus: number[] }) => i.cpus);
    expect(cpus.flat().sort((a: number, b: number) => a - b)).toEqual([0, 1]); // disjoint, one core each
    for (const instance of served.instances) {
      expect(instance.affinity.length).toBe(instance.threads);
      for (const thread of instance.affinity) expect(thread.actual).toEqual(instance.cpus);
      expect(instance.timeline.sessionCreateMs).toBeGreaterThan(0);
    }
  });

  it("answers every malformed request with its 4xx and a message", async () => {
    const post = (body: string | Uint8Array, headers: Record<string, string> = {}, model = "tiny-cnn") =>
      fetch(`${agent.url}/v2/models/${model}/infer`, {
        method: "POST",
        body: body as BodyInit,
        headers: { "content-type": "application/json", ...headers },
      });
    const cases: Array<[Promise<Response>, number, RegExp]> = [
      [post("{not json"), 400, /not valid JSON/],
      [post(JSON.stringify({ inputs: [] })), 400, /at least one input/],
      [
        post(JSON.stringify({ inputs: [{ name: "other", shape: [1], datatype: "FP32", data: [1] }] })),
        400,
        /unknown input "other"/,
      ],
      [
        post(JSON.stringify({ inputs: [{ name: "input", shape: [1, 3, 32, 31], datatype: "FP32", data: [] }] })),
        400,
        /dimension 3 is 31, the model expects 32/,
      ],
      [
        post(JSON.stringify({ inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "INT32", data: [] }] })),
        400,
        /datatype INT32, the model expects FP32/,
      ],
      [
        post(JSON.stringify({ inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: [1, 2, 3] }] })),
        400,
        /needs 3072 values, data has 3/,
      ],
      [
        post(JSON.stringify({ inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32" }] })),
        400,
        /neither data nor binary_data_size/,
      ],
      [post("{}", {}, "no-such-model"), 404, /unknown model "no-such-model"/],
      [post(Buffer.alloc(5 * 1024 * 1024, 32)), 413, /exceeds/],
      // Found by the fuzzer (src/testing/fuzz): a stack overflow, a URIError and ignored content types.
      [
        post(
          `{"inputs":[{"name":"input","shape":[1,3,32,32],"datatype":"FP32","data":${"[".repeat(200_000)}1${"]".repeat(200_000)}}]}`,
        ),
        400,
        /nested deeper than its shape/,
      ],
      [post("{}", {}, "%E0%A4%A"), 400, /not valid percent-encoded UTF-8/],
      [
        post(
          JSON.stringify({
            inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: Array.from(requestData(0, 1)) }],
          }),
          { "content-type": "text/html" },
        ),
        415,
        /Content-Type text\/html is not supported/,
      ],
      [post("{}", { "content-encoding": "gzip" }), 415, /Content-Encoding gzip/],
    ];
    // Binary lengths that lie: the header claims 12288 bytes, 100 follow.
    const lie = binaryBody(
      { inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", parameters: { binary_data_size: 12288 } }] },
      new Uint8Array(100),
    );
    cases.push([post(lie.body, { "inference-header-content-length": String(lie.headerLength) }), 400, /truncated/]);
    const wrongSize = binaryBody(
      { inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", parameters: { binary_data_size: 64 } }] },
      new Uint8Array(64),
    );
    cases.push([
      post(wrongSize.body, { "inference-header-content-length": String(wrongSize.headerLength) }),
      400,
      /binary_data_size is 64.*needs 12288 bytes/,
    ]);
    cases.push([
      post(Buffer.from("{}"), { "inference-header-content-length": "999" }),
      400,
      /Inference-Header-Content-Length is 999/,
    ]);
    for (const [pending, status, message] of cases) {
      const response = await pending;
      const body = await response.json();
      expect({ status: response.status, error: body.error }).toEqual({ status, error: expect.stringMatching(message) });
    }
  });

  it("rejects beyond AGENT_MAX_QUEUE with 503 and Retry-After", async () => {
    const { status, body, headers } = await inferJson(requestData(1, 65), 65);
    expect(status).toBe(503);
    expect(body.error).toMatch(/queue full/);
    expect(Number(headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("fails only the batch whose instance throws, then recreates the instance", async () => {
    const before = (await (await fetch(`${agent.url}/agent/status`)).json()).models[0].instanceRestarts;
    const faulty = await inferJson(requestData(3, 1), 1, { parameters: { packrat_fault: "throw" } });
    expect(faulty.status).toBe(503);
    expect(faulty.body.error).toMatch(/crashed/);
    await waitFor(
      async () => {
        const s = await (await fetch(`${agent.url}/agent/status`)).json();
        return s.models[0].instanceRestarts > before &&
          s.models[0].instances.every((i: { state: string }) => i.state === "ready")
          ? true
          : undefined;
      },
      30_000,
      "the instance to be recreated",
    );
    const data = requestData(4, 2);
    const ok = await inferJson(data, 2);
    expect(ok.status).toBe(200);
    expectClose(ok.body.outputs[0].data, await direct(data, 2));
    const metrics = await (await fetch(`${agent.url}/metrics`)).text();
    expect(metrics).toMatch(/packrat_instance_restarts_total\{model="tiny-cnn",version="1"\} [1-9]/);
  });

  it("exports Prometheus metrics: counts, execution counts and latency histograms", async () => {
    const text = await (await fetch(`${agent.url}/metrics`)).text();
    const value = (re: RegExp) => Number(re.exec(text)?.[1]);
    const inferences = value(/^packrat_inferences_total\{model="tiny-cnn",version="1"\} (\d+)/m);
    const executions = value(/^packrat_executions_total\{model="tiny-cnn",version="1"\} (\d+)/m);
    expect(executions).toBeGreaterThan(0);
    expect(inferences).toBeGreaterThanOrEqual(executions); // average batch = inferences / executions ≥ 1
    expect(text).toMatch(/packrat_requests_total\{model="tiny-cnn",version="1",protocol="http",status="200"\} \d+/);
    expect(text).toMatch(/packrat_requests_total\{model="tiny-cnn",version="1",protocol="http",status="400"\} \d+/);
    // Prometheus naming: every counter ends in _total, every duration is in seconds.
    for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
      if (type === "counter") expect(name).toMatch(/_total$/);
      if (/(_ms|_millis|_milliseconds|_us|_ns)(_|$)/.test(name!)) throw new Error(`${name} is not in base units`);
    }
    for (const h of ["queue", "formation", "compute", "request"]) expect(text).toContain(`packrat_${h}_seconds_bucket`);
  });

  it("restarts a SIGKILLed serving process; later requests succeed", async () => {
    const status = await (await fetch(`${agent.url}/agent/status`)).json();
    process.kill(status.pid, "SIGKILL");
    const after = await waitFor(
      async () => {
        const s = await (await fetch(`${agent.url}/agent/status`)).json();
        return s.pid !== status.pid ? s : undefined;
      },
      60_000,
      "a new serving process",
    );
    expect(after.servingProcessRestarts).toBe(status.servingProcessRestarts + 1);
    expect(after.lastRestartGapMs).toBeGreaterThan(0);
    await waitFor(
      async () => ((await fetch(`${agent.url}/v2/health/ready`)).status === 200 ? true : undefined),
      30_000,
      "ready",
    );
    const data = requestData(9, 2);
    const ok = await inferJson(data, 2);
    expect(ok.status).toBe(200);
    expectClose(ok.body.outputs[0].data, await direct(data, 2));
  });

  it("drains on SIGTERM: queued requests finish, then the agent exits 0 and leaves no ORT debug files", async () => {
    // A second agent whose batches wait 60 s to fill: requests sit in the queue until SIGTERM flushes them.
    const slow = await startAgent({
      modelBytes: model,
      name: "tiny-cnn",
      plan: { instances: [{ count: 1, threads: 1, batch: 64 }], batchTimeoutMs: 60_000 },
    });
    const servingPid = (await (await fetch(`${slow.url}/agent/status`)).json()).pid;
    const datas = [0, 1, 2, 3, 4, 5].map((k) => requestData(k, 2));
    const inFlight = datas.map((data) =>
      fetch(`${slow.url}/v2/models/tiny-cnn/infer`, {
        method: "POST",
        body: JSON.stringify({
          inputs: [{ name: "input", shape: [2, 3, 32, 32], datatype: "FP32", data: Array.from(data) }],
        }),
      }).then(async (r) => ({ status: r.status, body: await r.json() })),
    );
    await waitFor(
      async () =>
        (await (await fetch(`${slow.url}/agent/status`)).json()).models[0].queueRows === 12 ? true : undefined,
      30_000,
      "12 queued rows",
    );
    const code = await slow.stop();
    const results = await Promise.all(inFlight);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200]);
    for (const [k, r] of results.entries()) expectClose(r.body.outputs[0].data, await direct(datas[k]!, 2));
    expect(code).toBe(0);
    expect(readdirSync(tmpdir()).filter((f) => f === `mat-debug-${servingPid}.log`)).toEqual([]);
  });
});
