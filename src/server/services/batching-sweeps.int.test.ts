// Batching sweeps end to end (issue #20): proposed through the batching router, approved by an SRE through the one
// approve path, then run by the control plane against a real attached agent serving the tiny CNN — each candidate a
// temporary generation the agent applies, a load-test job it runs with the real load generator — and the base
// configuration restored as a new generation. A failed point restores too. Heartbeat 300 ms, long-poll 1 s.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { servingPlanSchema } from "@/contracts/serving-plan";
import { createCaller } from "@/server/api/root";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import {
  agentApiRoutes,
  startRouteServer,
  stopProcess,
  serveOnNewAgent,
  until,
} from "../../../test/control-plane-harness";
import { finishLoadTestJob } from "./load-tests-service";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-sweeps-"));
chmodSync(dataDir, 0o755);
let server: Awaited<ReturnType<typeof startRouteServer>>;
const children: ChildProcess[] = [];
let ml: SessionUser, sre: SessionUser, manager: SessionUser;
let deploymentId: string;
let agentId: string;
let profileId: string;

const as = (user: SessionUser) => createCaller(contextFor(user));
const deployment = () => db().deployment.findUniqueOrThrow({ where: { id: deploymentId } });
const sweepRow = (id: string) => db().batchingSweep.findUniqueOrThrow({ where: { id } });
const ended = (id: string) =>
  until(
    async () => {
      const s = await sweepRow(id);
      return s.state === "done" || s.state === "failed" ? s : undefined;
    },
    "the sweep to end",
    240_000,
  );
const planOf = async (generation: number) =>
  servingPlanSchema.parse(
    (
      await db().deploymentGeneration.findUniqueOrThrow({
        where: { deploymentId_generation: { deploymentId, generation } },
      })
    ).plan,
  );

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    AGENT_LOST_TIMEOUT_MS: "20000",
    PACKRAT_DATA_DIR: dataDir,
  });
  resetEnvForTests();
  const prisma = db();
  await prisma.batchingSweep.deleteMany({});
  await prisma.proposal.deleteMany({});
  await prisma.loadTest.deleteMany({});
  await prisma.profile.deleteMany({});
  await prisma.deployment.deleteMany({});
  await prisma.modelVersion.deleteMany({});
  await prisma.model.deleteMany({});
  [ml, sre, manager] = await Promise.all([
    insertTestUser(prisma, "ml_engineer"),
    insertTestUser(prisma, "sre"),
    insertTestUser(prisma, "manager"),
  ]);
  const admin = await insertTestUser(prisma, "admin");
  server = await startRouteServer(await agentApiRoutes());
  const served = await serveOnNewAgent({
    controlPlaneUrl: server.url,
    admin: { user: admin, requestId: "t" },
    dataDir,
    tokenName: "sweeps",
    modelName: "tiny-cnn",
    modelBytes: buildTinyCnn({ seed: 11, producerVersion: "packrat-test" }),
    children,
  });
  const { registered, version } = served;
  ({ deploymentId } = served);
  agentId = registered.id;
  // A complete profile measured "here", so an ordinary proposal can be made (and then expired by the sweep).
  const profile = await prisma.profile.create({
    data: {
      id: crypto.randomUUID(),
      modelVersionId: version.id,
      agentId,
      deploymentId,
      hardwareClass: hardwareClassOf(registered),
      runtimeSignature: runtimeSignatureOf(registered),
      cores: registered.allowedCpus.length,
      threads: [1],
      batches: [1, 2, 4],
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      cells: {
        create: [
          [1, 1.0],
          [2, 1.6],
          [4, 2.9],
        ].map(([b, ms]) => ({
          threads: 1,
          batch: b!,
          meanMs: ms!,
          p50Ms: ms!,
          p90Ms: ms!,
          p99Ms: ms!,
          stddevMs: 0.01,
          ciHalfWidthMs: 0.01,
          iterations: 100,
          stopReason: "fixed-count",
          histogram: "",
        })),
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

describe("batching sweeps", () => {
  it("refuses bad sweeps with a message naming what is wrong, and managers cannot propose", async () => {
    await expect(
      as(ml).batching.proposeSweep({ deploymentId, candidates: [], durationS: 2, ratePerS: 10, reason: "x" }),
    ).rejects.toThrow(/at least one/);
    await expect(
      as(ml).batching.proposeSweep({
        deploymentId,
        candidates: [{ windowMs: -1, maxBatch: 2 }],
        durationS: 2,
        ratePerS: 10,
        reason: "x",
      }),
    ).rejects.toThrow(/window must be ≥ 0/);
    await expect(
      as(ml).batching.proposeSweep({
        deploymentId,
        candidates: [
          { windowMs: 1, maxBatch: 2 },
          { windowMs: 1, maxBatch: 2 },
        ],
        durationS: 2,
        ratePerS: 10,
        reason: "x",
      }),
    ).rejects.toThrow(/listed twice/);
    await expect(
      as(ml).batching.proposeSweep({
        deploymentId,
        candidates: [{ windowMs: 1, maxBatch: 2 }],
        durationS: 1,
        ratePerS: 10,
        reason: "x",
      }),
    ).rejects.toThrow(/at least 2 s/);
    await expect(
      as(manager).batching.proposeSweep({
        deploymentId,
        candidates: [{ windowMs: 1, maxBatch: 2 }],
        durationS: 2,
        ratePerS: 10,
        reason: "x",
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await db().batchingSweep.count({ where: { deploymentId } })).toBe(0);
  });

  it("an approved 2-candidate sweep runs both points, records what was measured, restores the base configuration as a new generation and expires pending proposals", async () => {
    const base = await deployment();
    const basePlan = await planOf(base.generation);
    const pending = await as(ml).proposals.create({
      deploymentId,
      profileId,
      batchSize: 2,
      reason: "an ordinary proposal, pending",
    });
    const candidates = [
      { windowMs: 0, maxBatch: 1 },
      { windowMs: 3, maxBatch: 4 },
    ];
    const { proposalId, sweepId } = await as(ml).batching.proposeSweep({
      deploymentId,
      candidates,
      durationS: 2,
      ratePerS: 40,
      reason: "measure the frontier",
    });
    // One sweep per deployment: a second is refused while the first is pending.
    await expect(
      as(sre).batching.proposeSweep({
        deploymentId,
        candidates: [{ windowMs: 1, maxBatch: 2 }],
        durationS: 2,
        ratePerS: 10,
        reason: "another",
      }),
    ).rejects.toThrow(/one sweep per deployment/);
    const listed = (await as(manager).proposals.list({ deploymentId, state: "pending" })).find(
      (p) => p.id === proposalId,
    );
    expect(listed).toMatchObject({ source: "sweep", baseGeneration: base.generation });
    // Under the approval rules: a manager cannot approve it.
    await expect(as(manager).proposals.approve({ proposalId })).rejects.toMatchObject({ code: "FORBIDDEN" });

    const approved = await as(sre).proposals.approve({ proposalId, comment: "go" });
    expect(approved).toMatchObject({ sweepId, expiredProposals: 1, generation: base.generation + 1 });
    expect((await db().proposal.findUniqueOrThrow({ where: { id: pending.id } })).state).toBe("expired");

    const sweep = await ended(sweepId);
    expect(sweep.failureReason).toBeNull();
    expect(sweep.state).toBe("done");
    const points = sweep.points as Array<{
      windowMs: number;
      maxBatch: number;
      generation: number;
      status: string;
      okPerS: number;
      p99Ms: number;
      requests: number;
      loadTestId: string;
    }>;
    expect(points.map((p) => [p.windowMs, p.maxBatch, p.generation, p.status])).toEqual([
      [0, 1, base.generation + 1, "done"],
      [3, 4, base.generation + 2, "done"],
    ]);
    console.info(
      "measured sweep points (tiny CNN, 40 req/s Poisson, 2 s each):",
      JSON.stringify(
        points.map((p) => ({
          windowMs: p.windowMs,
          maxBatch: p.maxBatch,
          okPerS: p.okPerS,
          p99Ms: p.p99Ms,
          requests: p.requests,
        })),
      ),
    );
    for (const p of points) {
      expect(p.okPerS).toBeGreaterThan(0);
      expect(p.p99Ms).toBeGreaterThan(0);
      expect(p.requests).toBeGreaterThan(0);
      // The load test ran against the point's temporary generation.
      const test = await db().loadTest.findUniqueOrThrow({ where: { id: p.loadTestId } });
      expect(test.status).toBe("done");
      expect(test.generationAtStart).toBe(p.generation);
    }
    // The temporary generations carried the candidates; the restore is a new generation copying the base plan.
    expect(await planOf(base.generation + 1)).toMatchObject({ batchSize: 1, batchTimeoutMs: 0 });
    expect(await planOf(base.generation + 2)).toMatchObject({ batchSize: 4, batchTimeoutMs: 3 });
    expect(sweep.restoreGeneration).toBe(base.generation + 3);
    expect(await planOf(base.generation + 3)).toEqual(basePlan);
    const after = await deployment();
    expect(after.generation).toBe(base.generation + 3);
    expect(after.observedGeneration).toBe(base.generation + 3);
    expect(after.state).toBe("serving");

    const proposal = await db().proposal.findUniqueOrThrow({ where: { id: proposalId } });
    expect(proposal.state).toBe("applied");
    expect(proposal.appliedGeneration).toBe(base.generation + 3);
    const events = await db().auditEvent.findMany({
      where: { OR: [{ targetId: proposalId }, { action: "batching_sweep.restore", targetId: deploymentId }] },
      orderBy: { id: "asc" },
    });
    expect(events.map((e) => e.action)).toEqual([
      "proposal.create",
      "proposal.approve",
      "batching_sweep.restore",
      "batching_sweep.finish",
    ]);
    expect(
      await db().auditEvent.count({
        where: { action: "load_test.start", targetId: deploymentId, actorType: "system" },
      }),
    ).toBe(2);

    // The batching page reads the measured points for this deployment.
    const context = await as(manager).batching.context({ deploymentId });
    expect(context.sweeps[0]).toMatchObject({ id: sweepId, state: "done", expiredProposals: 1 });
    expect(context.sweeps[0]!.points).toHaveLength(2);
    // The complete profile is a T(B) source: its curve for t = 1, batch by batch.
    expect(context.profiles.find((p) => p.id === profileId)?.curves).toEqual([
      {
        threads: 1,
        points: [
          { batch: 1, latencyMs: 1 },
          { batch: 2, latencyMs: 1.6 },
          { batch: 4, latencyMs: 2.9 },
        ],
      },
    ]);
  });

  it("a point whose load test fails mid-sweep restores the base configuration as a new generation, and says so", async () => {
    const base = await deployment();
    const basePlan = await planOf(base.generation);
    const { proposalId, sweepId } = await as(sre).batching.proposeSweep({
      deploymentId,
      candidates: [
        { windowMs: 1, maxBatch: 2 },
        { windowMs: 2, maxBatch: 4 },
      ],
      durationS: 30,
      ratePerS: 20,
      reason: "will fail",
    });
    // The proposer (an SRE) cannot approve their own sweep; an ML engineer cannot approve at all.
    await expect(as(sre).proposals.approve({ proposalId })).rejects.toThrow(/cannot approve their own/);
    await expect(as(ml).proposals.approve({ proposalId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const sre2 = await insertTestUser(db(), "sre");
    await as(sre2).proposals.approve({ proposalId });
    // The first point's load test is running on the agent: the agent reports it failed (its failure path).
    const loading = await until(
      async () => {
        const s = await sweepRow(sweepId);
        if (s.phase !== "loading" || !s.loadTestId) return undefined;
        const test = await db().loadTest.findUniqueOrThrow({ where: { id: s.loadTestId } });
        const job = await db().job.findUniqueOrThrow({ where: { id: test.jobId } });
        return job.state === "running" ? job : undefined;
      },
      "the first point's load test to run",
      120_000,
    );
    expect((await sweepRow(sweepId)).pointIndex).toBe(0);
    await finishLoadTestJob(agentId, loading.id, "failed", "injected: the load generator crashed");

    const sweep = await ended(sweepId);
    expect(sweep.state).toBe("failed");
    expect(sweep.restoreGeneration).toBe(base.generation + 2);
    expect(sweep.failureReason).toMatch(
      /point 1 \(T_w = 1 ms, B_max = 2\): its load test failed \(injected: the load generator crashed\)/,
    );
    expect(sweep.failureReason).toContain(`restored as generation ${base.generation + 2}`);
    expect((sweep.points as unknown[]).length).toBe(1);
    const after = await deployment();
    expect(after.generation).toBe(base.generation + 2);
    expect(after.observedGeneration).toBe(base.generation + 2);
    expect(await planOf(base.generation + 2)).toEqual(basePlan);
    const proposal = await db().proposal.findUniqueOrThrow({ where: { id: proposalId } });
    expect(proposal.state).toBe("failed");
    expect(proposal.failureReason).toContain("restored as generation");
    expect(await db().auditEvent.count({ where: { action: "batching_sweep.fail", targetId: proposalId } })).toBe(1);
  });

  it("an SRE stops a running sweep: the base configuration is restored", async () => {
    const base = await deployment();
    const { proposalId, sweepId } = await as(ml).batching.proposeSweep({
      deploymentId,
      candidates: [{ windowMs: 1, maxBatch: 2 }],
      durationS: 30,
      ratePerS: 10,
      reason: "to be stopped",
    });
    await expect(as(sre).batching.cancelSweep({ sweepId })).rejects.toThrow(/reject its proposal instead/);
    await as(sre).proposals.approve({ proposalId });
    await expect(as(ml).batching.cancelSweep({ sweepId })).rejects.toMatchObject({ code: "FORBIDDEN" });
    // While it runs, nothing else is proposed for the deployment.
    await expect(
      as(ml).proposals.create({ deploymentId, profileId, batchSize: 2, reason: "during the sweep" }),
    ).rejects.toThrow(/a batching sweep is running/);
    await as(sre).batching.cancelSweep({ sweepId });
    const sweep = await ended(sweepId);
    expect(sweep.state).toBe("failed");
    expect(sweep.failureReason).toMatch(/cancelled by .* at point 1.*restored as generation/);
    expect((await deployment()).generation).toBe(base.generation + 2);
  });
});
