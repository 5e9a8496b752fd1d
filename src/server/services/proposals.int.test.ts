// The approval loop with a real agent: propose from a profile → an SRE approves → the agent applies the new
// generation; stale proposals are refused; a generation that fails is auto-reverted; rollback copies an old one.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/api/root";
import { contextFor, createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  insertModelVersion,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
} from "../../../test/control-plane-harness";
import { deployModel } from "./deployments-service";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-proposals-"));
chmodSync(dataDir, 0o755);
let server: Awaited<ReturnType<typeof startRouteServer>>;
const children: ChildProcess[] = [];
let ml: SessionUser, sre: SessionUser, sre2: SessionUser, manager: SessionUser;
let deploymentId: string;
let profileId: string;

const as = (user: SessionUser) => createCaller(contextFor(user));
const deployment = () => db().deployment.findUniqueOrThrow({ where: { id: deploymentId } });
const serving = (generation: number) =>
  until(async () => {
    const d = await deployment();
    return d.observedGeneration === generation && d.state === "serving" ? d : undefined;
  }, `generation ${generation} to serve`);

beforeAll(async () => {
  Object.assign(testEnv, { HEARTBEAT_INTERVAL_MS: "300", LONG_POLL_HOLD_MS: "1000", PACKRAT_DATA_DIR: dataDir });
  resetEnvForTests();
  const prisma = db();
  await prisma.proposal.deleteMany({});
  await prisma.profile.deleteMany({});
  await prisma.deployment.deleteMany({});
  await prisma.modelVersion.deleteMany({});
  await prisma.model.deleteMany({});
  [ml, sre, sre2, manager] = await Promise.all([
    insertTestUser(prisma, "ml_engineer"),
    insertTestUser(prisma, "sre"),
    insertTestUser(prisma, "sre"),
    insertTestUser(prisma, "manager"),
  ]);
  const admin = await insertTestUser(prisma, "admin");
  server = await startRouteServer(await agentApiRoutes());
  const { token, id: tokenId } = await createTestAgentToken({ user: admin, requestId: "t" }, { name: "proposals" });
  const agent = startAgentProcess(server.url, token, join(dataDir, "agent"), await freePort());
  children.push(agent.process);
  // This token's agent: other test files leave agents of their own in the shared database.
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: tokenId } } } }),
    "registration",
  );
  const version = await insertModelVersion(
    dataDir,
    "tiny-cnn",
    buildTinyCnn({ seed: 4, producerVersion: "packrat-test" }),
  );
  deploymentId = (
    await deployModel(
      { user: admin, requestId: "t" },
      { agentId: registered.id, modelVersionId: version.id, cpus: registered.allowedCpus },
    )
  ).id;
  await serving(1);
  // A complete profile measured "here" (same hardware class and runtime signature): one thread is nearly as fast
  // as two at every b, so for B = 4 two one-thread instances (b = 2 each, 2.2 ms) beat ⟨1, 2, 4⟩ (3.6 ms).
  const latency: Record<string, number> = { "1x1": 1.2, "1x2": 2.2, "1x4": 4.3, "2x1": 1.0, "2x2": 1.9, "2x4": 3.6 };
  const profile = await prisma.profile.create({
    data: {
      id: crypto.randomUUID(),
      modelVersionId: version.id,
      agentId: registered.id,
      deploymentId,
      hardwareClass: hardwareClassOf(registered),
      runtimeSignature: runtimeSignatureOf(registered),
      cores: registered.allowedCpus.length,
      threads: [1, 2],
      batches: [1, 2, 4],
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      cells: {
        create: Object.entries(latency).map(([k, ms]) => {
          const [t, b] = k.split("x").map(Number);
          return {
            threads: t!,
            batch: b!,
            meanMs: ms,
            p50Ms: ms,
            p90Ms: ms,
            p99Ms: ms,
            stddevMs: 0.01,
            ciHalfWidthMs: 0.01,
            iterations: 100,
            stopReason: "fixed-count",
            histogram: "",
          };
        }),
      },
    },
  });
  profileId = profile.id;
});

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("proposals and approvals", () => {
  it("runs the optimizer for the deployment and shows the plan beside both baselines", async () => {
    const result = await as(manager).proposals.optimize({ deploymentId, profileId, batchSize: 4 });
    expect(result.kind).toBe("plan");
    if (result.kind !== "plan") return;
    expect(result.instances.map((i) => [i.count, i.threads, i.batch])).toEqual([[2, 1, 2]]);
    expect(result.latencyMs).toBe(2.2);
    expect(result.baselines.allThreads).toMatchObject({ available: true, latencyMs: 3.6 });
    expect(result.plan.instances[0]!.cpus).toHaveLength(2);
  });

  it("propose → a manager cannot approve → the proposer cannot → an SRE approves → applied", async () => {
    const { id } = await as(ml).proposals.create({
      deploymentId,
      profileId,
      batchSize: 4,
      reason: "profile says 2×1 beats 1×2",
    });
    await expect(as(manager).proposals.approve({ proposalId: id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const own = await as(sre).proposals.create({ deploymentId, profileId, batchSize: 4, reason: "mine" });
    await expect(as(sre).proposals.approve({ proposalId: own.id })).rejects.toThrow(/cannot approve their own/);
    const { generation } = await as(sre2).proposals.approve({ proposalId: id });
    expect(generation).toBe(2);
    await serving(2);
    await until(
      async () => (await db().proposal.findUniqueOrThrow({ where: { id } })).state === "applied",
      "the proposal to be applied",
    );
    const events = await db().auditEvent.findMany({ where: { targetId: id }, orderBy: { id: "asc" } });
    expect(events.map((e) => e.action)).toEqual(["proposal.create", "proposal.approve", "proposal.applied"]);
    // The other proposal was made against generation 1: now stale.
    await expect(as(sre2).proposals.approve({ proposalId: own.id })).rejects.toThrow(/stale/);
    expect((await db().proposal.findUniqueOrThrow({ where: { id: own.id } })).state).toBe("expired");
  });

  it("rejecting needs a comment", async () => {
    const { id } = await as(ml).proposals.create({ deploymentId, profileId, batchSize: 2, reason: "try B = 2" });
    await expect(as(sre).proposals.reject({ proposalId: id, comment: "" })).rejects.toMatchObject({
      code: "BAD_REQUEST",
    });
    await as(sre).proposals.reject({ proposalId: id, comment: "not now" });
    expect((await db().proposal.findUniqueOrThrow({ where: { id } })).state).toBe("rejected");
  });

  it("auto-reverts a generation that fails to apply, then rolls back on request", async () => {
    const before = await deployment();
    const { id } = await as(ml).proposals.create({ deploymentId, profileId, batchSize: 4, reason: "will fail" });
    // The agent cannot pin to CPU 63 on this host: the new set never starts, the agent reports the failure.
    const proposal = await db().proposal.findUniqueOrThrow({ where: { id } });
    const plan = proposal.plan as { instances: Array<{ cpus?: string[] }> };
    plan.instances.forEach((item) => {
      item.cpus = item.cpus?.map(() => "63");
    });
    await db().proposal.update({ where: { id }, data: { plan } });
    const { generation } = await as(sre2).proposals.approve({ proposalId: id });
    expect(generation).toBe(before.generation + 1);
    const reverted = await until(async () => {
      const d = await deployment();
      return d.generation === generation + 1 ? d : undefined;
    }, "the auto-revert");
    await serving(reverted.generation);
    const revert = await db().deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId, generation: reverted.generation } },
    });
    expect(revert.label).toBe(`auto-revert: generation ${generation} failed`);
    expect((await db().proposal.findUniqueOrThrow({ where: { id } })).state).toBe("failed");
    expect(await db().auditEvent.count({ where: { action: "deployment.auto_revert", targetId: deploymentId } })).toBe(
      1,
    );

    const { generation: rolled } = await as(sre).proposals.rollback({ deploymentId, toGeneration: 1 });
    await serving(rolled);
    const copy = await db().deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId, generation: rolled } },
    });
    const first = await db().deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId, generation: 1 } },
    });
    expect(copy.plan).toEqual(first.plan);
    await expect(as(sre).proposals.rollback({ deploymentId, toGeneration: generation })).rejects.toThrow(
      /never applied/,
    );
  });
});
