// The data plane's only credential: with AGENT_INFER_TOKEN set, inference needs `Authorization: Bearer <it>`;
// without it, with another token, another scheme or a near miss, the answer is 401 and no batch runs. The token
// never shows up in the agent's own output (supervisor and serving process).
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { recordSecret } from "../../../test/secrets-list";
import { startAgent, type RunningAgent } from "./test-agent-process";

const token = `infer-${randomBytes(24).toString("base64url")}`;
let agent: RunningAgent;

const body = JSON.stringify({
  inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: new Array(3 * 32 * 32).fill(0.5) }],
});
const infer = (headers: Record<string, string>) =>
  fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });

/** Batches tiny-cnn's instances executed, from the agent's Prometheus metrics. */
async function batchesRun(): Promise<number> {
  const text = await (await fetch(`${agent.url}/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  const line = text.split("\n").find((l) => l.startsWith('packrat_executions_total{model="tiny-cnn",'));
  return line ? Number(line.trim().split(/\s+/).pop()) : 0;
}

beforeAll(async () => {
  recordSecret("inference token", token);
  agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 11, producerVersion: "packrat-test" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 1 }], batchTimeoutMs: 1 },
    env: { AGENT_INFER_TOKEN: token },
  });
});
afterAll(async () => {
  await agent?.stop();
});

describe("AGENT_INFER_TOKEN", () => {
  it("inference without the token, with another one, another scheme or a near miss is 401 with WWW-Authenticate", async () => {
    const wrong: Array<[string, Record<string, string>]> = [
      ["no header", {}],
      ["another token", { authorization: `Bearer infer-${randomBytes(24).toString("base64url")}` }],
      ["the token as Basic", { authorization: `Basic ${token}` }],
      ["the token without a scheme", { authorization: token }],
      ["the token less its last character", { authorization: `Bearer ${token.slice(0, -1)}` }],
      ["the token plus a character", { authorization: `Bearer ${token}x` }],
      ["an empty bearer", { authorization: "Bearer " }],
    ];
    for (const [what, headers] of wrong) {
      const response = await infer(headers);
      expect({ what, status: response.status }).toEqual({ what, status: 401 });
      expect(response.headers.get("www-authenticate")).toMatch(/^Bearer/);
      await response.body?.cancel();
    }
    expect(await batchesRun()).toBe(0); // none of them reached the model
  });

  it("the right token is served; health and metadata stay open to probes", async () => {
    const response = await infer({ authorization: `Bearer ${token}` });
    expect(response.status).toBe(200);
    expect((await response.json()).outputs[0].shape).toEqual([1, 10]);
    expect(await batchesRun()).toBe(1);
    expect((await fetch(`${agent.url}/v2/health/ready`)).status).toBe(200);
    expect((await fetch(`${agent.url}/v2/models/tiny-cnn`)).status).toBe(200);
  });

  it("/metrics and /agent/status need the token too (they name models, pids and traffic)", async () => {
    for (const path of ["/metrics", "/agent/status"]) {
      const anonymous = await fetch(`${agent.url}${path}`);
      expect({ path, status: anonymous.status }).toEqual({ path, status: 401 });
      expect(await anonymous.text()).not.toMatch(/tiny-cnn|pid/);
      const withToken = await fetch(`${agent.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      expect({ path, status: withToken.status }).toEqual({ path, status: 200 });
      await withToken.body?.cancel();
    }
  });

  it("the agent never prints the token", () => {
    expect(agent.output()).not.toContain(token);
  });
});
