// Request bodies cannot add up to an out-of-memory kill: the serving process holds at most
// AGENT_MAX_BODY_BYTES_IN_FLIGHT of them (JSON charged JSON_HEAP_FACTOR times) and answers the rest 503 +
// Retry-After before reading them; a JSON body larger than the budget could ever hold is 413. A real agent
// process serving tiny-cnn over real HTTP.
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { processMemory, servingSnapshot } from "../../../src/testing/fuzz/agent-probe";
import { startAgent, type RunningAgent } from "./test-agent-process";

const MiB = 1024 ** 2;
const IN_FLIGHT = 64 * MiB;
let agent: RunningAgent;

/** A valid tiny-cnn request of about `bytes` of JSON (rows of 3 072 values spelled "0.5"). */
function jsonRequest(bytes: number): string {
  const rows = Math.max(1, Math.floor(bytes / (3 * 32 * 32 * 4)));
  return JSON.stringify({
    inputs: [
      { name: "input", shape: [rows, 3, 32, 32], datatype: "FP32", data: new Array(rows * 3 * 32 * 32).fill(0.5) },
    ],
  });
}

beforeAll(async () => {
  agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 5, producerVersion: "packrat-test" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 64 }], batchTimeoutMs: 1 },
    env: { AGENT_MAX_BODY_BYTES_IN_FLIGHT: String(IN_FLIGHT) },
  });
});
afterAll(async () => {
  await agent?.stop();
});

const infer = (body: string) =>
  fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });

describe("body bytes in flight", () => {
  it("16 parallel 8 MiB JSON bodies against a 64 MiB budget (32 MiB each as JSON): two at a time, the rest 503 + Retry-After; no crash", async () => {
    const { pid } = await servingSnapshot(agent.url);
    const body = jsonRequest(8 * MiB);
    const answers = await Promise.all(
      Array.from({ length: 16 }, async () => {
        const response = await infer(body);
        const text = await response.text();
        return { status: response.status, retryAfter: response.headers.get("retry-after"), text };
      }),
    );
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.every((s) => s === 200 || s === 503),
      JSON.stringify(statuses),
    ).toBe(true);
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(1);
    const refused = answers.filter((a) => a.status === 503);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    for (const r of refused) {
      expect(r.retryAfter).toBe("1");
      expect(JSON.parse(r.text)).toEqual({ error: expect.stringMatching(/holding as many request bodies/) });
    }
    // The same serving process answered all of them, and its peak stayed far from 16 bodies' worth of heap.
    expect((await servingSnapshot(agent.url)).pid).toBe(pid);
    expect(processMemory(pid).peak).toBeLessThan(1.5 * 1024 * MiB);
    // Once they are done the budget is whole again: one more is served.
    expect((await infer(body)).status).toBe(200);
  });

  it("binary uploads cut off midway (after the header, inside the tensor) give their share back and leave nothing behind", async () => {
    // 2 048 rows: 24 MiB of tensor, charged whole when it is announced; two of them held would leave no room for a third.
    const rows = 2048;
    const tensor = Buffer.alloc(rows * 3 * 32 * 32 * 4);
    new Float32Array(tensor.buffer, tensor.byteOffset, tensor.length / 4).fill(0.5);
    const header = Buffer.from(
      JSON.stringify({
        inputs: [
          {
            name: "input",
            shape: [rows, 3, 32, 32],
            datatype: "FP32",
            parameters: { binary_data_size: tensor.length },
          },
        ],
      }),
    );
    const url = new URL(agent.url);
    for (let i = 0; i < 4; i++) {
      const socket = connect(Number(url.port), url.hostname);
      await new Promise((done) => socket.once("connect", done));
      socket.write(
        `POST /v2/models/tiny-cnn/infer HTTP/1.1\r\nhost: agent\r\ncontent-type: application/octet-stream\r\n` +
          `inference-header-content-length: ${header.length}\r\ncontent-length: ${header.length + tensor.length}\r\n\r\n`,
      );
      // The header and a third of the tensor, the cut in the middle of a value, then the client goes away.
      await new Promise((done) => socket.write(Buffer.concat([header, tensor.subarray(0, 8 * MiB + 1)]), done));
      socket.destroy();
      await new Promise((done) => socket.once("close", done));
    }
    const response = await fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
      method: "POST",
      headers: { "content-type": "application/octet-stream", "inference-header-content-length": String(header.length) },
      body: Buffer.concat([header, tensor]),
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { outputs: Array<{ shape: number[] }> };
    expect(answer.outputs[0]!.shape).toEqual([rows, 10]);
  });

  it("a JSON body larger than the budget could hold (a quarter of it) is 413 before it is read", async () => {
    const response = await infer(jsonRequest(IN_FLIGHT / 4 + MiB));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringMatching(/exceeds 16777216 bytes/) });
  });
});
