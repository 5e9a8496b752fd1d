// Plan trials end to end: a proposal from the optimizer is checked by a trial on a real agent (tiny CNN) before it
// is offered; cancel, a lost agent and plans that cannot start. Timing constants shortened: heartbeat 300 ms,
// long-poll 1 s, agent-lost 2 s.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Prisma } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  insertModelVersion,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
  type TestAgent,
} from "../../../test/control-plane-harness";
import { deployModel } from "./deployments-service";
import {
  agentContentionModel,
  cancelPlanTrial,
  expireUnclaimedTrials,
  TRIAL_CLAIM_TIMEOUT_MS,
  type ProposalTrial,
} from "./plan-trial-service";
import { createProfileJob } from "./profiling-service";
import { proposeFromOptimizer } from "./proposals-service";
import type { ServiceCaller } from "./users-service";
import { PLAN_TRIAL_JOB_KIND } from "@/contracts/agent-jobs";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-trials-"));
chmodSync(dataDir, 0o755);
let engineer: ServiceCaller;
let sre: ServiceCaller;
let server: Awaited<ReturnType<typeof startRouteServer>>;
let agent: TestAgent;
let agentToken: string;
let stateDir: string;
let agentPort: number;
let deploymentId: string;
let agentId: string;
let profileId: string;
let artifact: { sha256: string; bytes: number };
const children: ChildProcess[] = [];

const launch = () => {
  agent = startAgentProcess(server.url, agentToken, stateDir, agentPort);
  children.push(agent.process);
};

// A name no other integration file registers: files share one database, and some leave their models behind.
const MODEL_NAME = "tiny-cnn-trials";

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    AGENT_LOST_TIMEOUT_MS: "2000",
    PACKRAT_DATA_DIR: dataDir,
  });
  resetEnvForTests();
  const prisma = db();
  engineer = { user: await insertTestUser(prisma, "ml_engineer"), requestId: "trial-test" };
  sre = { user: await insertTestUser(prisma, "sre"), requestId: "trial-test" };
  const admin: ServiceCaller = { user: await insertTestUser(prisma, "admin"), requestId: "trial-test" };
  server = await startRouteServer(await agentApiRoutes());
  const created = await createTestAgentToken(admin, { name: "trials" });
  agentToken = created.token;
  stateDir = join(dataDir, "agent");
  agentPort = await freePort();
  launch();
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: created.id } } } }),
    "registration",
  );
  agentId = registered.id;
  const version = await insertModelVersion(
    dataDir,
    MODEL_NAME,
    buildTinyCnn({ seed: 8, producerVersion: "packrat-test" }),
  );
  artifact = {
    sha256: version.artifactSha256,
    bytes: Number((await prisma.artifact.findUniqueOrThrow({ where: { sha256: version.artifactSha256 } })).bytes),
  };
  deploymentId = (await deployModel(admin, { agentId, modelVersionId: version.id, cpus: registered.allowedCpus })).id;
  await until(
    async () => (await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } })).state === "serving",
    "the deployment to serve",
  );
  // A complete profile up to b = 512 (B = 512 batches take tens of ms: a trial lasts long enough to act on).
  const threads = Array.from({ length: Math.min(2, registered.allowedCpus.length) }, (_, i) => i + 1);
  profileId = (await createProfileJob(engineer, { deploymentId, threads, batches: [1, 2, 4, 256, 512] })).profileId;
  await until(
    async () =>
      (await prisma.profile.findUniqueOrThrow({ where: { id: profileId } })).status === "complete" || undefined,
    "the profile",
    240_000,
  );
}, 300_000);

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const proposal = (id: string) => db().proposal.findUniqueOrThrow({ where: { id } });
const trialOf = async (id: string) => (await proposal(id)).trial as unknown as ProposalTrial;
const settled = (id: string) =>
  until(
    async () => {
      const p = await proposal(id);
      return p.state !== "trialing" ? p : undefined;
    },
    "the trial to settle",
    240_000,
  );

describe("plan trials", () => {
  it("checks a proposal before it is offered: every candidate predicted and measured side by side, a verdict, the contention model fed", async () => {
    const { id, trial } = await proposeFromOptimizer(sre, {
      deploymentId,
      profileId,
      batchSize: 4,
      reason: "trial test",
      trial: true,
    });
    expect(trial!.estimateMs).toBeGreaterThan(0);
    expect((await proposal(id)).state).toBe("trialing");
    const done = await settled(id);
    expect(done.state).toBe("pending");
    const t = done.trial as unknown as ProposalTrial;
    expect(t.state).toBe("done");
    expect(t.candidates.length).toBeGreaterThanOrEqual(2);
    expect(t.candidates.some((c) => c.roles.includes("all-threads"))).toBe(true);
    for (const c of t.candidates.filter((x) => x.measured)) {
      expect(c.predictedMs).toBeGreaterThan(0);
      expect(c.measured!.rounds).toBe(4);
      expect(c.measured!.lowerMs).toBeLessThanOrEqual(c.measured!.meanMs);
      expect(c.measured!.upperMs).toBeGreaterThanOrEqual(c.measured!.meanMs);
      expect(c.measured!.instanceMs).toBeGreaterThan(0);
    }
    expect(t.verdict).not.toBeNull();
    // The proposal is the verdict's plan: the optimizer's unless the trial contradicted it beyond noise.
    const proposedKey = t.verdict!.proposedKey;
    expect(t.verdict!.contradicted ? t.replaced?.key : proposedKey).toBe(t.verdict!.predictedKey);
    expect(t.costS).toBeGreaterThan(0);
    const model = await agentContentionModel(agentId);
    expect(model.observations).toBeGreaterThanOrEqual(
      t.candidates.filter((c) => c.measured && c.predictedMs !== null).length,
    );
    expect(model.contention.intercept).toBeGreaterThan(0);
  }, 300_000);

  it("cancel: the trial ends cancelled, the agent stops it, and the proposal is offered on its predictions", async () => {
    const { id } = await proposeFromOptimizer(sre, {
      deploymentId,
      profileId,
      batchSize: 512,
      reason: "trial cancel",
      trial: true,
    });
    await until(async () => ((await trialOf(id)).state === "running" ? true : undefined), "the trial to run", 120_000);
    await cancelPlanTrial(sre, { proposalId: id });
    await until(
      async () => agent.log().includes("plan trial cancelled") || undefined,
      "the agent to stop the trial",
      120_000,
    );
    const p = await proposal(id);
    expect(p.state).toBe("pending");
    expect((p.trial as unknown as ProposalTrial).state).toBe("cancelled");
    expect((await db().job.findUniqueOrThrow({ where: { id: p.trialJobId! } })).state).toBe("cancelled");
    await expect(cancelPlanTrial(sre, { proposalId: id })).rejects.toThrow(/already cancelled/);
  }, 300_000);

  it("a lost agent: its trial is requeued and run again once it is back", async () => {
    const { id } = await proposeFromOptimizer(sre, {
      deploymentId,
      profileId,
      batchSize: 512,
      reason: "trial lost agent",
      trial: true,
    });
    await until(async () => ((await trialOf(id)).state === "running" ? true : undefined), "the trial to run", 120_000);
    agent.process.kill("SIGKILL");
    await until(
      async () => agent.process.exitCode !== null || agent.process.signalCode !== null || undefined,
      "the agent to die",
    );
    launch(); // a new boot id: the job goes back to the queue and is claimed again
    const p = await settled(id);
    const job = await db().job.findUniqueOrThrow({ where: { id: p.trialJobId! } });
    expect([job.state, job.attempts]).toEqual(["done", 2]);
    expect((p.trial as unknown as ProposalTrial).state).toBe("done");
  }, 400_000);

  it("plans that cannot start: each named with its reason, and a trial where none can start fails with them", async () => {
    const prisma = db();
    const { cpus } = await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } });
    // A job as queuePlanTrial writes it, with plans the optimizer would never pick (no proposal behind it).
    const params = (plans: Array<{ key: string; groups: Array<{ count: number; threads: number; batch: number }> }>) =>
      ({
        modelName: MODEL_NAME,
        artifactSha256: artifact.sha256,
        artifactBytes: artifact.bytes,
        batch: 4,
        dimensions: {},
        budgetCpus: cpus,
        plans,
        rounds: 2,
        roundMs: 50,
        settleMs: 10,
        minBatchesPerTurn: 2,
        warmupIterations: 1,
        maxDurationMs: 60_000,
        agentId,
        proposalId: "none",
        deploymentId,
        cores: 2,
        estimateMs: 1000,
        model: null,
        candidates: plans.map((p, i) => ({
          ...p,
          roles: ["rank"],
          rank: i + 1,
          predictedMs: null,
          groupLatencies: p.groups,
          correctedMs: null,
        })),
      }) as unknown as Prisma.InputJsonValue;
    // More instances than the budget has cores, and batches that do not add up to B.
    const impossible = { key: "⟨5,1,1⟩", groups: [{ count: 5, threads: 1, batch: 1 }] };
    const wrongB = { key: "⟨1,1,3⟩", groups: [{ count: 1, threads: 1, batch: 3 }] };
    const failing = await prisma.job.create({
      data: { id: randomUUID(), kind: PLAN_TRIAL_JOB_KIND, params: params([impossible, wrongB]) },
    });
    await prisma.$executeRaw`SELECT pg_notify('packrat_jobs', ${agentId})`;
    const failed = await until(
      async () => {
        const j = await prisma.job.findUniqueOrThrow({ where: { id: failing.id } });
        return j.state !== "queued" && j.state !== "running" ? j : undefined;
      },
      "the failing trial",
      120_000,
    );
    expect(failed.state).toBe("failed");
    expect(failed.error).toMatch(
      /⟨5,1,1⟩ cannot start: .*; ⟨1,1,3⟩ cannot start: its instances' batches do not add up to B = 4/,
    );
    const mixed = await prisma.job.create({
      data: {
        id: randomUUID(),
        kind: PLAN_TRIAL_JOB_KIND,
        params: params([impossible, { key: "⟨1,1,4⟩", groups: [{ count: 1, threads: 1, batch: 4 }] }]),
      },
    });
    await prisma.$executeRaw`SELECT pg_notify('packrat_jobs', ${agentId})`;
    const done = await until(
      async () => {
        const j = await prisma.job.findUniqueOrThrow({ where: { id: mixed.id } });
        return j.state !== "queued" && j.state !== "running" ? j : undefined;
      },
      "the mixed trial",
      120_000,
    );
    expect(done.state).toBe("done");
    const result = done.result as { plans: Array<{ key: string; error?: string; turns: unknown[] }> };
    expect(result.plans.find((p) => p.key === "⟨5,1,1⟩")!.error).toMatch(/^cannot start: /);
    expect(result.plans.find((p) => p.key === "⟨1,1,4⟩")!.turns).toHaveLength(2);
  }, 300_000);

  it("a trial no agent starts in time ends failed, saying why, and its proposal is offered on its predictions", async () => {
    // The agent is gone (stopped, not lost mid-job): its trial stays queued.
    await stopProcess(agent.process);
    const { id } = await proposeFromOptimizer(sre, {
      deploymentId,
      profileId,
      batchSize: 4,
      reason: "trial unclaimed",
      trial: true,
    });
    expect((await proposal(id)).state).toBe("trialing");
    // Before the timeout nothing changes; a clock past it fails the trial.
    expect(await expireUnclaimedTrials(db())).toBe(0);
    expect(await expireUnclaimedTrials(db(), Date.now() + TRIAL_CLAIM_TIMEOUT_MS + 1000)).toBe(1);
    const p = await proposal(id);
    expect(p.state).toBe("pending");
    const reason = `the agent did not start the trial within ${TRIAL_CLAIM_TIMEOUT_MS / 60_000} minutes (offline or busy)`;
    expect(p.trial as unknown as ProposalTrial).toMatchObject({ state: "failed", error: reason });
    expect(await db().job.findUniqueOrThrow({ where: { id: p.trialJobId! } })).toMatchObject({
      state: "failed",
      error: reason,
    });
  }, 120_000);
});
