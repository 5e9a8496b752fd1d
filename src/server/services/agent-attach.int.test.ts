// Agents attach to the control plane: a real agent process, real PostgreSQL, the real route handlers over real HTTP.
// Timing constants are shortened (heartbeat 300 ms, long-poll hold 2 s, reconnect backoff 100–300 ms).
import type { ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { createTestAgentToken, createTestEnrollmentToken, insertTestUser } from "@/server/auth/test-support";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  insertModelVersion,
  startAgentProcess as startAgentProcessAt,
  startRouteServer,
  stopProcess,
  until,
} from "../../../test/control-plane-harness";
import type { Route } from "../../../test/route-server";
import { recordSecret } from "../../../test/secrets-list";
import { revokeAgentToken } from "./agent-tokens-service";
import { deployModel } from "./deployments-service";
import type { ServiceCaller } from "./users-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-attach-"));
chmodSync(dataDir, 0o755);
let caller: ServiceCaller;
let routes: Route[];
let server: Awaited<ReturnType<typeof startRouteServer>> | undefined;
let cpPort = 0;
const agents: ChildProcess[] = [];

const inferOnce = async (url: string) => {
  const response = await fetch(`${url}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    body: JSON.stringify({
      inputs: [{ name: "input", shape: [1, 3, 32, 32], datatype: "FP32", data: new Array(3072).fill(0.25) }],
    }),
  });
  return response.status;
};

const registerTinyCnn = () =>
  insertModelVersion(dataDir, "tiny-cnn", buildTinyCnn({ seed: 5, producerVersion: "packrat-test" }));
const startAgentProcess = (token: string | null, stateDir: string, port: number, env: Record<string, string> = {}) => {
  const agent = startAgentProcessAt(`http://127.0.0.1:${cpPort}`, token, stateDir, port, env);
  agents.push(agent.process);
  return agent;
};
const stop = (child: ChildProcess) => stopProcess(child);
const readAgentToken = (stateDir: string) => readFileSync(join(stateDir, "agent-token"), "utf8").trim();

beforeAll(async () => {
  Object.assign(testEnv, { HEARTBEAT_INTERVAL_MS: "300", LONG_POLL_HOLD_MS: "2000", PACKRAT_DATA_DIR: dataDir });
  resetEnvForTests();
  const prisma = db();
  await prisma.profile.deleteMany({});
  await prisma.deployment.deleteMany({});
  await prisma.modelVersion.deleteMany({});
  await prisma.model.deleteMany({});
  const admin = await insertTestUser(prisma, "admin");
  caller = { user: admin, requestId: "attach-test" };
  routes = await agentApiRoutes();
  cpPort = await freePort();
  server = await startRouteServer(routes, cpPort);
});

afterAll(async () => {
  for (const child of agents) await stop(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("agents attach to the control plane", () => {
  it("registers, serves a deployment at generation 1, survives a control-plane outage and its own restart", async () => {
    const prisma = db();
    const token = await createTestAgentToken(caller, { name: "attach test" });
    const stateDir = join(dataDir, "agent-1");
    const port = await freePort();
    let agent = startAgentProcess(token.token, stateDir, port);
    const registered = await until(
      () => prisma.agent.findFirst({ where: { tokens: { some: { id: token.id } } } }),
      "registration",
    );
    expect(registered.allowedCpus.length).toBeGreaterThan(0);
    expect(registered.protocolVersion).toBe(1);
    await until(async () => existsSync(join(stateDir, "agent.json")), "the agent to store its identity");
    expect(statSync(join(stateDir, "agent.json")).mode & 0o777).toBe(0o600);

    // Deploy → the agent fetches the artifact, serves it, and reports generation 1.
    const version = await registerTinyCnn();
    const deployment = await deployModel(caller, {
      agentId: registered.id,
      modelVersionId: version.id,
      cpus: registered.allowedCpus,
    });
    await until(async () => {
      const d = await prisma.deployment.findUniqueOrThrow({ where: { id: deployment.id } });
      return d.state === "serving" && d.observedGeneration === 1;
    }, "the deployment to serve generation 1");
    expect(await inferOnce(agent.url)).toBe(200);
    const generation = await prisma.deploymentGeneration.findFirstOrThrow({
      where: { deploymentId: deployment.id, generation: 1 },
    });
    expect(generation).toMatchObject({ outcome: "applied", label: "default (unprofiled)" });

    // Heartbeats fold into the minute's rollup: the request above is counted.
    await until(
      async () =>
        (
          await prisma.metricsRollup.aggregate({
            where: { deploymentId: deployment.id },
            _sum: { requestsCompleted: true },
          })
        )._sum.requestsCompleted! >= 1,
      "the rollup to count the request",
    );

    // Overlapping core budgets are refused.
    await expect(
      deployModel(caller, { agentId: registered.id, modelVersionId: version.id, cpus: [registered.allowedCpus[0]!] }),
    ).rejects.toThrow(/already belong to another deployment|already deployed/);

    // Control plane down: inference goes on.
    const downAt = Date.now();
    await server!.close();
    await new Promise((r) => setTimeout(r, 500));
    expect(await inferOnce(agent.url)).toBe(200);

    // The agent restarts while the control plane is still down: it serves the persisted generation anyway.
    await stop(agent.process);
    agent = startAgentProcess(token.token, stateDir, port);
    expect(
      await until(
        async () => (await inferOnce(agent.url)) === 200,
        "the restarted agent to serve before the control plane answers",
      ),
    ).toBe(true);

    // Control plane back: the agent reattaches (a fresh heartbeat arrives).
    server = await startRouteServer(routes, cpPort);
    const reattachStart = Date.now();
    await until(async () => {
      const a = await prisma.agent.findUniqueOrThrow({ where: { id: registered.id } });
      return a.lastHeartbeatAt && a.lastHeartbeatAt.getTime() > reattachStart;
    }, "the agent to heartbeat again");
    console.log(
      `[attach] reattached ${Date.now() - reattachStart} ms after the control plane came back (down ${reattachStart - downAt} ms)`,
    );

    // A revoked token: heartbeats are no longer accepted.
    await revokeAgentToken(caller, { id: token.id });
    const revokedAt = Date.now();
    await new Promise((r) => setTimeout(r, 1500));
    const after = await prisma.agent.findUniqueOrThrow({ where: { id: registered.id } });
    expect(after.lastHeartbeatAt!.getTime()).toBeLessThan(revokedAt + 400);
    expect(agent.log()).toMatch(/heartbeat not accepted/);
    await stop(agent.process);
  });

  it("binds an agent token to one host: a second host presenting it gets 409", async () => {
    const token = await createTestAgentToken(caller, { name: "bound" });
    const body = (host: string) => ({
      protocolVersion: 1,
      agentVersion: "0.1.0",
      hostName: host,
      bootId: crypto.randomUUID(),
      topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
      allowedCpus: [0],
      cpuModel: "test",
      memoryBytes: 1e9,
      ortVersion: "1.30.0",
    });
    const post = (host: string, bearer: string) =>
      fetch(`${server!.url}/api/agent/v1/register`, {
        method: "POST",
        headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
        body: JSON.stringify(body(host)),
      });
    expect((await post("host-a", token.token)).status).toBe(200);
    expect((await post("host-a", token.token)).status).toBe(200); // the same host again (a restart) is fine
    const second = await post("host-b", token.token);
    expect(second.status).toBe(409);
    expect((await second.json()).error.message).toMatch(/bound to host host-a/);
    const wrongProtocol = await fetch(`${server!.url}/api/agent/v1/register`, {
      method: "POST",
      headers: { authorization: `Bearer ${token.token}`, "content-type": "application/json" },
      body: JSON.stringify({ ...body("host-a"), protocolVersion: 99 }),
    });
    expect(wrongProtocol.status).toBe(400);
    expect((await wrongProtocol.json()).error.message).toMatch(/protocol 99 is not supported/);
  });

  it("lets two hosts enroll with one enrollment token, each getting its own agent token", async () => {
    const enrollment = await createTestEnrollmentToken(caller, { name: "fleet", maxUses: 2 });
    const register = (host: string) =>
      fetch(`${server!.url}/api/agent/v1/register`, {
        method: "POST",
        headers: { authorization: `Bearer ${enrollment.token}`, "content-type": "application/json" },
        body: JSON.stringify({
          protocolVersion: 1,
          agentVersion: "0.1.0",
          hostName: host,
          bootId: crypto.randomUUID(),
          topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
          allowedCpus: [0],
          cpuModel: "test",
          memoryBytes: 1e9,
          ortVersion: "1.30.0",
        }),
      });
    const a = await (await register("fleet-1")).json();
    const b = await (await register("fleet-2")).json();
    recordSecret("agent token", a.agentToken ?? "");
    recordSecret("agent token", b.agentToken ?? "");
    expect(a.agentId).not.toBe(b.agentId);
    expect(a.agentToken).toMatch(/^prat_/);
    expect(b.agentToken).toMatch(/^prat_/);
    expect(a.agentToken).not.toBe(b.agentToken);
    const whoami = await fetch(`${server!.url}/api/agent/v1/whoami`, {
      headers: { authorization: `Bearer ${a.agentToken}` },
    });
    expect(whoami.status).toBe(200);
    const third = await register("fleet-3");
    expect(third.status).toBe(401);
    expect((await third.json()).error.message).toMatch(/all 2 uses taken/);
  });

  it("enrolls with a token read from AGENT_TOKEN_FILE, deletes that file once enrolled, and restarts on the token it keeps", async () => {
    const enrollment = await createTestEnrollmentToken(caller, { name: "from-a-file", maxUses: 1 });
    const secrets = join(dataDir, "secrets");
    mkdirSync(secrets, { recursive: true });
    const tokenFile = join(secrets, "enrollment-token");
    writeFileSync(tokenFile, `${enrollment.token}\n`, { mode: 0o600 });
    const stateDir = join(dataDir, "agent-from-file");
    const env = {
      AGENT_TOKEN_FILE: tokenFile,
      AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL: "true",
      AGENT_HOST_NAME: "enrolled-from-file",
    };
    let agent = startAgentProcess(null, stateDir, await freePort(), env);
    const registered = await until(
      () => db().agent.findFirst({ where: { hostName: "enrolled-from-file" } }),
      "enrollment from the file",
    );
    await until(async () => !existsSync(tokenFile), "the token file to be removed");
    expect(agent.log()).toMatch(/enrollment token file removed/);
    recordSecret("agent token", readAgentToken(stateDir));
    // Restarted with the file gone: it registers again as the same agent, on its own token.
    await stop(agent.process);
    const before = (await db().agent.findUniqueOrThrow({ where: { id: registered.id } })).bootId;
    agent = startAgentProcess(null, stateDir, await freePort(), env);
    await until(
      async () => (await db().agent.findUniqueOrThrow({ where: { id: registered.id } })).bootId !== before,
      "the restarted agent to register",
    );
    expect(await db().agent.count({ where: { hostName: "enrolled-from-file" } })).toBe(1);
    await stop(agent.process);
  });
});
