// The three report streams over real HTTP and real PostgreSQL: a heartbeat renews the lease and nothing else, an
// event moves a deployment's state and its generation's outcome, metrics fill the live report and the minute's
// rollup (inserted as sent, merged when the minute's row exists); an older agent's reporting heartbeat still works.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { LatencyHistogram } from "@/core/stats/histogram";
import { rollupHistogramsColumn, rollupPartColumn, rollupStageParts } from "@/contracts/deployment-columns";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import { alertSnapshot } from "@/server/services/alerts-evaluation-service";
import { deployModel } from "@/server/services/deployments-service";
import type { ServiceCaller } from "@/server/services/users-service";
import pg from "pg";
import { hashAgentToken } from "@/server/services/agent-tokens-service";
import { LeaseRenewals } from "@/server/services/lease-renewals";
import { testEnv } from "../../../test/test-env";
import { agentApiRoutes, insertModelVersion, startRouteServer } from "../../../test/control-plane-harness";

let server: Awaited<ReturnType<typeof startRouteServer>> | undefined;
let caller: ServiceCaller;
let dataDir: string;

const call = (token: string, path: string, body: unknown) =>
  fetch(`${server!.url}/api/agent/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function registeredAgent(hostName: string) {
  const token = await createTestAgentToken(caller, { name: hostName });
  const bootId = crypto.randomUUID();
  const registered = await call(token.token, "/register", {
    protocolVersion: 1,
    agentVersion: "0.1.0",
    hostName,
    bootId,
    topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
    allowedCpus: [0],
    cpuModel: "test",
    memoryBytes: 1e9,
    ortVersion: "1.30.0",
  });
  expect(registered.status).toBe(200);
  const { agentId, metricsIntervalMs } = (await registered.json()) as { agentId: string; metricsIntervalMs: number };
  const version = await insertModelVersion(dataDir, `m-${hostName}`, buildTinyCnn({ seed: 1, producerVersion: "t" }));
  const deployment = await deployModel(caller, { agentId, modelVersionId: version.id, cpus: [0] });
  return { token: token.token, tokenId: token.id, bootId, agentId, deploymentId: deployment.id, metricsIntervalMs };
}

const histogram = (samplesMs: number[]) => {
  const h = LatencyHistogram.create();
  for (const ms of samplesMs) h.recordMs(ms);
  return h.encode();
};

/** A deployment's histogram parts, in arrival order. */
const partsOf = async (deploymentId: string) =>
  (await db().metricsRollupPart.findMany({ where: { deploymentId }, orderBy: { id: "asc" } })).map((p) =>
    rollupPartColumn.read(p.encoded),
  );

const metrics = (bootId: string, deploymentId: string, completed: number, compute: string) => ({
  bootId,
  host: { cpuBusyFraction: 0.25, memoryUsedBytes: 2e9 },
  servingProcessRestarts: 1,
  deployments: [
    {
      deploymentId,
      intervalMs: 15_000,
      requests: { completed, rejected: 1, withinSlo: completed },
      rows: { completed, rejected: 1 },
      histograms: { compute },
      busyMs: 3000,
      queueDepthRows: completed,
      instances: [{ id: 0, threads: 1, batch: 1, state: "ready", cpus: [0], affinityOk: true }],
      affinityOk: true,
    },
  ],
});

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "packrat-report-streams-"));
  Object.assign(testEnv, { PACKRAT_DATA_DIR: dataDir, HEARTBEAT_INTERVAL_MS: "4000" });
  delete testEnv.METRICS_INTERVAL_MS;
  resetEnvForTests();
  caller = { user: await insertTestUser(db(), "admin"), requestId: "report-streams-test" };
  server = await startRouteServer(await agentApiRoutes(), 0);
});
afterAll(async () => {
  await server?.close();
});

describe("agent report streams", () => {
  it("registration tells the metrics interval: three heartbeat intervals unless METRICS_INTERVAL_MS says otherwise", async () => {
    const agent = await registeredAgent("streams-interval");
    expect(agent.metricsIntervalMs).toBe(12_000);
  });

  it("a heartbeat renews the lease and the applied revision, and leaves the deployment and the rollups alone", async () => {
    const agent = await registeredAgent("streams-lease");
    const before = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    const response = await call(agent.token, "/heartbeat", { bootId: agent.bootId, revision: 1 });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true, revision: 1 });
    const row = await db().agent.findUniqueOrThrow({ where: { id: agent.agentId } });
    expect(row.appliedRevision).toBe(1);
    expect(row.bootId).toBe(agent.bootId);
    expect(row.lastHeartbeatAt!.getTime()).toBeGreaterThan(Date.now() - 60_000);
    const after = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    expect(after.lastReport).toEqual(before.lastReport);
    expect(after.state).toBe(before.state);
    expect(await db().metricsRollup.count({ where: { deploymentId: agent.deploymentId } })).toBe(0);
    expect(await db().metricsRollupPart.count({ where: { deploymentId: agent.deploymentId } })).toBe(0);
    expect(await db().agentHeartbeat.count({ where: { agentId: agent.agentId } })).toBe(0);
  });

  it("a decommissioned agent's heartbeat is refused (409) and renews nothing", async () => {
    const agent = await registeredAgent("streams-gone");
    await db().agent.update({ where: { id: agent.agentId }, data: { decommissionedAt: new Date() } });
    const response = await call(agent.token, "/heartbeat", { bootId: agent.bootId, revision: 1 });
    expect(response.status).toBe(409);
    expect((await db().agent.findUniqueOrThrow({ where: { id: agent.agentId } })).appliedRevision).toBe(0);
  });

  it("an event marks the generation applied (with its reconfiguration report) or failed, and sets the state", async () => {
    const agent = await registeredAgent("streams-events");
    const reconfiguration = {
      generation: 1,
      kind: "scale",
      outcome: "applied",
      started: 1,
      stopped: 0,
      kept: 0,
      overlapCpus: [],
      phasesMs: { start: 1, warm: 2, switch: 0, drain: 0, stop: 0, total: 3 },
      servedBatches: 0,
    };
    const served = await call(agent.token, "/events", {
      bootId: agent.bootId,
      deployments: [
        {
          deploymentId: agent.deploymentId,
          observedGeneration: 1,
          state: "serving",
          lastReconfiguration: reconfiguration,
        },
      ],
    });
    expect(served.status).toBe(200);
    const deployment = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    expect(deployment.state).toBe("serving");
    expect(deployment.observedGeneration).toBe(1);
    const generation = await db().deploymentGeneration.findFirstOrThrow({
      where: { deploymentId: agent.deploymentId, generation: 1 },
    });
    expect(generation.outcome).toBe("applied");
    expect(generation.report).toMatchObject({ kind: "scale", phasesMs: { total: 3 } });
    expect((deployment.lastReport as { lastReconfiguration?: unknown }).lastReconfiguration).toMatchObject({
      generation: 1,
    });

    const failed = await call(agent.token, "/events", {
      bootId: agent.bootId,
      deployments: [
        {
          deploymentId: agent.deploymentId,
          observedGeneration: 1,
          state: "failed",
          failureReason: "generation 1: out of memory",
        },
      ],
    });
    expect(failed.status).toBe(200);
    const after = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    expect(after.state).toBe("failed");
    expect(after.failureReason).toBe("generation 1: out of memory");
  });

  it("an event about a deployment of another agent changes nothing; an empty one is refused (400)", async () => {
    const a = await registeredAgent("streams-owner");
    const b = await registeredAgent("streams-other");
    const before = await db().deployment.findUniqueOrThrow({ where: { id: a.deploymentId } });
    const forged = await call(b.token, "/events", {
      bootId: b.bootId,
      deployments: [{ deploymentId: a.deploymentId, observedGeneration: 1, state: "failed", failureReason: "x" }],
    });
    expect(forged.status).toBe(200);
    const after = await db().deployment.findUniqueOrThrow({ where: { id: a.deploymentId } });
    expect([after.state, after.failureReason]).toEqual([before.state, before.failureReason]);
    const empty = await call(b.token, "/events", { bootId: b.bootId, deployments: [] });
    expect(empty.status).toBe(400);
    expect((await empty.json()).error.parameter).toBe("deployments");
  });

  it("metrics fill the live report and the host's load; two intervals of one minute add up in its rollup", async () => {
    const agent = await registeredAgent("streams-metrics");
    // Both messages must land in one minute: start just after a minute boundary.
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const first = histogram([1, 2, 3]);
    const second = histogram([10, 20]);
    expect((await call(agent.token, "/metrics", metrics(agent.bootId, agent.deploymentId, 30, first))).status).toBe(
      200,
    );
    const rows = await db().metricsRollup.findMany({ where: { deploymentId: agent.deploymentId } });
    expect(rows).toHaveLength(1);
    // Each interval's histograms are stored as they came, one part row per message (inserted, never updated),
    // merged by the readers; the counters' row carries none.
    expect(await partsOf(agent.deploymentId)).toEqual([{ compute: first }]);
    expect(rollupHistogramsColumn.read(rows[0]!.histograms)).toEqual([{}]);
    expect((await call(agent.token, "/metrics", metrics(agent.bootId, agent.deploymentId, 50, second))).status).toBe(
      200,
    );
    const [rollup] = await db().metricsRollup.findMany({ where: { deploymentId: agent.deploymentId } });
    expect(rollup!.requestsCompleted).toBe(80);
    expect(rollup!.requestsRejected).toBe(2);
    expect(rollup!.intervalMs).toBe(30_000);
    expect(rollup!.busyMs).toBe(6000);
    expect(rollup!.queueDepthMax).toBe(50);
    expect(await partsOf(agent.deploymentId)).toEqual([{ compute: first }, { compute: second }]);
    expect(rollupHistogramsColumn.read(rollup!.histograms)).toEqual([{}]);
    const parts = rollupStageParts(await partsOf(agent.deploymentId), "compute");
    expect(LatencyHistogram.merge(parts.map((p) => LatencyHistogram.decode(p))).count).toBe(5);
    const deployment = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    expect(deployment.lastReport).toMatchObject({
      intervalMs: 15_000,
      requests: { completed: 50 },
      queueDepthRows: 50,
    });
    expect((deployment.lastReport as { arrivalRatePerS: number }).arrivalRatePerS).toBeCloseTo(51 / 15, 6);
    const host = await db().agent.findUniqueOrThrow({ where: { id: agent.agentId } });
    expect(host.lastHost).toMatchObject({ cpuBusyFraction: 0.25, memoryUsedBytes: 2e9, servingProcessRestarts: 1 });
    // The crash-loop alert's restarts counter: a row only when it moved (the first message: from nothing known).
    expect(await db().agentHeartbeat.count({ where: { agentId: agent.agentId } })).toBe(1);
  });

  it("the alert snapshot reads each live deployment's label, SLO, current generation's batch and applied proposal", async () => {
    const agent = await registeredAgent("streams-snapshot");
    const deployment = await db().deployment.findUniqueOrThrow({
      where: { id: agent.deploymentId },
      include: { modelVersion: { include: { model: true } } },
    });
    await db().model.update({
      where: { id: deployment.modelVersion.modelId },
      data: { sloDeadlineMs: 50, sloQuantile: 0.99 },
    });
    const current = await db().deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId: agent.deploymentId, generation: deployment.generation } },
    });
    const proposal = await db().proposal.create({
      data: {
        id: crypto.randomUUID(),
        deploymentId: agent.deploymentId,
        items: [],
        plan: {},
        batchSize: 1,
        batchTimeoutMs: 0,
        baseGeneration: deployment.generation,
        reason: "test",
        expiresAt: new Date(Date.now() + 3_600_000),
        state: "applied",
        appliedGeneration: deployment.generation,
        predictedLatencyMs: 12,
        measuredBatchLatencyMs: 13,
      },
    });
    const snapshot = await db().$transaction((tx) => alertSnapshot(tx, new Date(), 10 * 60_000));
    const mine = snapshot.deployments.find((d) => d.id === agent.deploymentId)!;
    expect(mine).toMatchObject({
      label: `${deployment.modelVersion.model.name} v${deployment.modelVersion.number} on streams-snapshot`,
      agentId: agent.agentId,
      state: deployment.state,
      slo: { deadlineMs: 50, quantile: 0.99 },
      batchSize: planBatchSize(servingPlanSchema.parse(current.plan)),
      running: { proposalId: proposal.id, predictedLatencyMs: 12, measuredBatchLatencyMs: 13 },
      autoRevert: null,
    });
    expect(snapshot.agents.find((a) => a.id === agent.agentId)).toMatchObject({ label: "streams-snapshot" });
  });

  it("the crash-loop alert counts each rise of the serving-process restart counter, from rows kept only when it moves", async () => {
    const agent = await registeredAgent("streams-restarts");
    const send = async (bootId: string, restarts: number) => {
      const body = { ...metrics(bootId, agent.deploymentId, 1, histogram([1])), servingProcessRestarts: restarts };
      expect((await call(agent.token, "/metrics", body)).status).toBe(200);
    };
    // 0 (first: nothing before it), 0, 1 (+1), 1, 3 (+2), then the agent restarts: 0 (down: not a crash), 1 (+1).
    for (const restarts of [0, 0, 1, 1, 3]) await send(agent.bootId, restarts);
    const restarted = crypto.randomUUID();
    for (const restarts of [0, 1]) await send(restarted, restarts);
    const rows = await db().agentHeartbeat.findMany({ where: { agentId: agent.agentId }, orderBy: { id: "asc" } });
    expect(
      rows.map((r) => (r.body as { previousServingProcessRestarts: number | null }).previousServingProcessRestarts),
    ).toEqual([null, 0, 1, 3, 0]);
    const snapshot = await db().$transaction((tx) => alertSnapshot(tx, new Date(), 10 * 60_000));
    // 1 + 2 + 1: the rises, each told by its own row; the first row and the drop count nothing.
    expect(snapshot.agents.find((a) => a.id === agent.agentId)!.servingRestartsInWindow).toBe(4);
  });

  it("a histogram that is not a compressed HdrHistogram is refused (400, naming the stage) and stores nothing", async () => {
    const agent = await registeredAgent("streams-bad-histogram");
    const response = await call(
      agent.token,
      "/metrics",
      metrics(agent.bootId, agent.deploymentId, 3, "aGVsbG8gd29ybGQ="),
    );
    expect(response.status).toBe(400);
    expect(JSON.stringify(await response.json())).toContain("histograms.compute");
    expect(await partsOf(agent.deploymentId)).toEqual([]);
    expect(await db().metricsRollup.count({ where: { deploymentId: agent.deploymentId } })).toBe(0);
  });

  it("a deployment listed twice in one metrics message adds up as two messages would, the later report live", async () => {
    const agent = await registeredAgent("streams-twice");
    const intoMinute = Date.now() % 60_000;
    if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 100));
    const first = metrics(agent.bootId, agent.deploymentId, 30, histogram([1, 2, 3])).deployments[0]!;
    const second = metrics(agent.bootId, agent.deploymentId, 50, histogram([10, 20])).deployments[0]!;
    const body = { ...metrics(agent.bootId, agent.deploymentId, 0, histogram([1])), deployments: [first, second] };
    expect((await call(agent.token, "/metrics", body)).status).toBe(200);
    const [rollup, ...others] = await db().metricsRollup.findMany({ where: { deploymentId: agent.deploymentId } });
    expect(others).toHaveLength(0);
    expect([rollup!.requestsCompleted, rollup!.intervalMs, rollup!.queueDepthMax]).toEqual([80, 30_000, 50]);
    expect(rollupStageParts(await partsOf(agent.deploymentId), "compute")).toHaveLength(2);
    const deployment = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    expect(deployment.lastReport).toMatchObject({ requests: { completed: 50 }, queueDepthRows: 50 });
  });

  it("an older agent's heartbeat with its reports is still accepted: lease, state, generation outcome and rollup", async () => {
    const agent = await registeredAgent("streams-legacy");
    const body = {
      bootId: agent.bootId,
      revision: 1,
      host: { cpuBusyFraction: 0.5, memoryUsedBytes: 1e9 },
      servingProcessRestarts: 0,
      deployments: [
        {
          ...metrics(agent.bootId, agent.deploymentId, 7, histogram([4])).deployments[0]!,
          observedGeneration: 1,
          state: "serving",
        },
      ],
    };
    expect((await call(agent.token, "/heartbeat", body)).status).toBe(200);
    const deployment = await db().deployment.findUniqueOrThrow({ where: { id: agent.deploymentId } });
    expect(deployment.state).toBe("serving");
    expect(deployment.lastReport).toMatchObject({ requests: { completed: 7 } });
    expect(
      (await db().deploymentGeneration.findFirstOrThrow({ where: { deploymentId: agent.deploymentId, generation: 1 } }))
        .outcome,
    ).toBe("applied");
    const rollups = await db().metricsRollup.findMany({ where: { deploymentId: agent.deploymentId } });
    expect(rollups.reduce((n, r) => n + r.requestsCompleted, 0)).toBe(7);
    expect((await db().agent.findUniqueOrThrow({ where: { id: agent.agentId } })).appliedRevision).toBe(1);
  });

  it("the token's last use is written at most once a minute, not on every request", async () => {
    const agent = await registeredAgent("streams-last-used");
    const stamped = (await db().agentToken.findUniqueOrThrow({ where: { id: agent.tokenId } })).lastUsedAt!;
    for (let i = 0; i < 3; i++)
      expect((await call(agent.token, "/heartbeat", { bootId: agent.bootId, revision: 0 })).status).toBe(200);
    expect((await db().agentToken.findUniqueOrThrow({ where: { id: agent.tokenId } })).lastUsedAt).toEqual(stamped);
    const minuteAgo = new Date(Date.now() - 61_000);
    await db().agentToken.update({ where: { id: agent.tokenId }, data: { lastUsedAt: minuteAgo } });
    expect((await call(agent.token, "/heartbeat", { bootId: agent.bootId, revision: 0 })).status).toBe(200);
    const restamped = (await db().agentToken.findUniqueOrThrow({ where: { id: agent.tokenId } })).lastUsedAt!;
    expect(restamped.getTime()).toBeGreaterThan(minuteAgo.getTime() + 30_000);
  });

  it("heartbeats that arrive while a renewal runs go in one statement, each answered for itself, a token at most once", async () => {
    const [a1, a2, a3, gone] = await Promise.all(
      ["streams-group-1", "streams-group-2", "streams-group-3", "streams-group-gone"].map(registeredAgent),
    );
    await db().agent.update({ where: { id: gone!.agentId }, data: { decommissionedAt: new Date() } });
    const unregistered = await createTestAgentToken(caller, { name: "streams-group-unregistered" });
    // A pool that counts its statements: the grouping is what this test is about.
    const statements: number[] = [];
    const pool = new pg.Pool({ connectionString: testEnv.DATABASE_URL, max: 2 });
    const query = pool.query.bind(pool) as (config: pg.QueryConfig) => Promise<pg.QueryResult>;
    pool.query = ((config: pg.QueryConfig) => {
      statements.push((config.values?.[0] as unknown[] | undefined)?.length ?? 0);
      return query(config);
    }) as typeof pool.query;
    try {
      const renewals = new LeaseRenewals(pool);
      const [firstBoot, secondBoot] = [crypto.randomUUID(), crypto.randomUUID()];
      const renew = (token: string, revision: number, bootId: string) =>
        renewals.renew({ tokenHash: hashAgentToken(token), revision, bootId });
      // All in one tick: the first is sent alone at once, the rest wait for it and go together, except a2's second
      // heartbeat, whose token is already in that group: it goes after it.
      const outcomes = await Promise.all([
        renew(a1!.token, 3, a1!.bootId),
        renew(a2!.token, 4, firstBoot),
        renew(a2!.token, 5, secondBoot),
        renew(a3!.token, 6, a3!.bootId),
        renew(gone!.token, 7, gone!.bootId),
        renew("pr_agent_unknown", 8, crypto.randomUUID()),
        renew(unregistered.token, 9, crypto.randomUUID()),
      ]);
      expect(statements).toEqual([1, 5, 1]);
      const [first, second, secondAgain, third, decommissioned, unknown, notRegistered] = outcomes;
      expect(first).toMatchObject({ tokenFound: true, agentId: a1!.agentId, agentFound: true, decommissioned: false });
      expect(first!.previousBootId).toBe(a1!.bootId);
      expect(second).toMatchObject({ agentId: a2!.agentId, previousBootId: a2!.bootId, decommissioned: false });
      // The later heartbeat saw the earlier one's boot id: it ran after it.
      expect(secondAgain).toMatchObject({ agentId: a2!.agentId, previousBootId: firstBoot });
      expect(third).toMatchObject({ agentId: a3!.agentId, agentFound: true });
      for (const renewed of [first, second, secondAgain, third]) expect(renewed!.revision).toEqual(expect.any(Number));
      expect(decommissioned).toMatchObject({ agentId: gone!.agentId, decommissioned: true, revision: null });
      expect(unknown).toEqual({
        tokenFound: false,
        agentId: null,
        hostName: null,
        agentFound: false,
        decommissioned: false,
        previousBootId: null,
        revision: null,
      });
      expect(notRegistered).toMatchObject({ tokenFound: true, agentId: null, agentFound: false });
      const rows = await db().agent.findMany({
        where: { id: { in: [a1!.agentId, a2!.agentId, a3!.agentId, gone!.agentId] } },
      });
      const byId = new Map(rows.map((r) => [r.id, r]));
      expect(byId.get(a1!.agentId)!.appliedRevision).toBe(3);
      expect(byId.get(a2!.agentId)).toMatchObject({ appliedRevision: 5, bootId: secondBoot });
      expect(byId.get(a3!.agentId)!.appliedRevision).toBe(6);
      expect(byId.get(gone!.agentId)!.appliedRevision).toBe(0);
    } finally {
      await pool.end();
    }
  });
});
