// The estimator's loop closed under human control (issue #17), with a real agent over real HTTP: a load step makes the
// agent's estimator propose a larger B, which becomes ONE proposal (re-proposals update it) with the estimator's
// timeline; without a profile a proposal cannot be approved; an auto-approve policy applies an in-bounds proposal
// (the agent runs the new generation) and leaves out-of-bounds ones pending with its reasons.
// Estimator timings shortened: decisions every 200 ms, 2 s dwell, the high rate observed for 3× the dwell.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { EstimatorDecisionReport } from "@/contracts/agent-protocol";
import { conv, linear, poolFlatten, relu } from "@/modelzoo/cnn-layers";
import { GraphBuilder } from "@/modelzoo/graph-builder";
import { createCaller } from "@/server/api/root";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { encodeInferRequest } from "../../../apps/loadgen/src/oip-body";
import { OipClient } from "../../../apps/loadgen/src/oip-client";
import { generateInputs } from "../../../apps/loadgen/src/oip-inputs";
import { runOpenLoop } from "../../../apps/loadgen/src/open-loop";
import { buildSchedule } from "../../../apps/loadgen/src/schedule";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  insertModelVersion,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
} from "../../../test/control-plane-harness";
import { createAgentToken } from "./agent-tokens-service";
import { deployModel } from "./deployments-service";
import { deploymentLastReportColumn } from "@/contracts/deployment-columns";
import { proposalEvidenceColumn } from "@/contracts/proposal-columns";
import { recordEstimatorProposal } from "./estimator-proposals-service";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";
import { testEnv } from "../../../test/test-env";

const DECISION_MS = 200;
const DWELL_MS = 2000;
const MODEL = "slow-cnn";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-estimator-"));
chmodSync(dataDir, 0o755);
let server: Awaited<ReturnType<typeof startRouteServer>>;
const children: ChildProcess[] = [];
let sre: SessionUser, ml: SessionUser;
let deploymentId: string;
let agentUrl: string;
let agentId: string;
let modelVersionId: string;

const as = (user: SessionUser) => createCaller(contextFor(user));
const deployment = () => db().deployment.findUniqueOrThrow({ where: { id: deploymentId } });
const serving = (generation: number) =>
  until(async () => {
    const d = await deployment();
    return d.observedGeneration === generation && d.state === "serving" ? d : undefined;
  }, `generation ${generation} to serve`);
const estimatorProposals = () =>
  db().proposal.findMany({ where: { deploymentId, source: "estimator" }, orderBy: { createdAt: "asc" } });

/** A CNN slow enough that 400 requests a second overload it on any CPU: 5 convolutions of 128 channels at 64×64
 *  take ≈ 23 ms per image on one core of this EPYC (12 ms on two), so it serves ≈ 80/s here and would need a host
 *  5× faster per core to keep up. Lighter models (a few hundred µs) left the queue to HTTP overhead, which a fast
 *  CI host may not have. */
function buildSlowCnn(): Uint8Array {
  const b = new GraphBuilder(MODEL, 5);
  let x = b.input("input", "float32", ["batch", 3, 64, 64]);
  x = relu(b, conv(b, x, "conv1", { cin: 3, cout: 128, kernel: 3, bias: true }));
  for (let i = 2; i <= 5; i++) x = relu(b, conv(b, x, `conv${i}`, { cin: 128, cout: 128, kernel: 3, bias: true }));
  b.output(linear(b, poolFlatten(b, x), "fc", 128, 10), "float32", ["batch", 10], "logits");
  return b.toBytes({ producerVersion: "packrat-test" });
}

/** A decision as the agent reports it, for the proposals this test makes by hand. */
const decision = (proposed: number, current: number): EstimatorDecisionReport => ({
  tMs: Date.now(),
  samples: 40,
  qHat: proposed * 1.5,
  qTilde: proposed * 1.2,
  estimate: proposed,
  stable: proposed,
  current,
  triggers: { timeoutShare: 1, batchTimeouts: true, meanQueueDelayMs: 4, queueDelay: true, holds: true },
  dwellRemainingMs: 0,
  proposed,
  outcome: "proposed",
});

/** A complete profile "measured here": L(t, b) = 1 + 4·b/t ms, so for every B one instance on all T cores wins (ties go to fewer instances). */
async function insertProfile(): Promise<string> {
  const agent = await db().agent.findUniqueOrThrow({ where: { id: agentId } });
  const T = agent.allowedCpus.length;
  const threads = [...new Set([1, T])];
  const batches = [1, 2, 4, 8, 16, 32, 64];
  const profile = await db().profile.create({
    data: {
      id: crypto.randomUUID(),
      modelVersionId,
      agentId,
      deploymentId,
      hardwareClass: hardwareClassOf(agent),
      runtimeSignature: runtimeSignatureOf(agent),
      cores: T,
      threads,
      batches,
      stoppingRule: { kind: "fixed", warmup: 10, iterations: 100 },
      status: "complete",
      cells: {
        create: threads.flatMap((t) =>
          batches.map((b) => {
            const ms = 1 + (4 * b) / t;
            return {
              threads: t,
              batch: b,
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
        ),
      },
    },
  });
  return profile.id;
}

beforeAll(async () => {
  Object.assign(testEnv, { HEARTBEAT_INTERVAL_MS: "300", LONG_POLL_HOLD_MS: "1000", PACKRAT_DATA_DIR: dataDir });
  resetEnvForTests();
  const prisma = db();
  await prisma.proposal.deleteMany({});
  await prisma.approvalPolicy.deleteMany({});
  await prisma.profile.deleteMany({});
  await prisma.deployment.deleteMany({});
  await prisma.modelVersion.deleteMany({});
  await prisma.model.deleteMany({});
  [sre, ml] = await Promise.all([insertTestUser(prisma, "sre"), insertTestUser(prisma, "ml_engineer")]);
  const admin = await insertTestUser(prisma, "admin");
  server = await startRouteServer(await agentApiRoutes());
  const createdToken = await createAgentToken({ user: admin, requestId: "t" }, { name: "estimator" });
  const token = createdToken.token;
  const port = await freePort();
  // The serving process reads the estimator's timing from its environment.
  const agent = startAgentProcess(server.url, token, join(dataDir, "agent"), port, {
    ESTIMATOR_DECISION_INTERVAL_MS: String(DECISION_MS),
    ESTIMATOR_MIN_DWELL_MS: String(DWELL_MS),
    AGENT_WARMUP_ITERATIONS: "1",
  });
  children.push(agent.process);
  agentUrl = agent.url;
  // Agents of earlier test files registered from this same host: find ours by its token.
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: createdToken.id } } } }),
    "registration",
  );
  agentId = registered.id;
  const version = await insertModelVersion(dataDir, MODEL, buildSlowCnn());
  modelVersionId = version.id;
  deploymentId = (
    await deployModel(
      { user: admin, requestId: "t" },
      { agentId, modelVersionId: version.id, cpus: registered.allowedCpus },
    )
  ).id;
  await serving(1);
});

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("estimator proposals", () => {
  it("without a profile, a proposal says so and cannot be approved", async () => {
    // B = 128: more than this test's load can ever propose (at most 40 requests in flight), so it never collides below.
    const outcome = await recordEstimatorProposal(deploymentId, {
      batchSize: 128,
      decision: decision(128, 1),
      timeline: [decision(128, 1)],
    });
    expect(outcome.kind).toBe("created");
    const [p] = await estimatorProposals();
    expect(p).toMatchObject({
      state: "pending",
      reason: "estimator: stable batch size 1 → 128",
      profileId: null,
      proposedById: null,
    });
    expect(p!.blockedReason).toMatch(
      /no complete profile of this model version matches the deployment.*profile the deployment/,
    );
    await expect(as(sre).proposals.approve({ proposalId: p!.id })).rejects.toThrow(
      /cannot be approved: no complete profile/,
    );
    expect((await deployment()).generation).toBe(1);
    // Rejected, the same B is not proposed again for this generation.
    await as(sre).proposals.reject({ proposalId: p!.id, comment: "profile first" });
    expect(await recordEstimatorProposal(deploymentId, { batchSize: 128, decision: decision(128, 1) })).toMatchObject({
      kind: "ignored",
    });
    expect(await estimatorProposals()).toHaveLength(1);
    await db().proposal.deleteMany({ where: { deploymentId } });
  });

  it("a load step from a low to a high rate produces ONE estimator proposal, with its timeline", async () => {
    await insertProfile();
    const client = new OipClient({ url: new URL(agentUrl), model: MODEL, timeoutMs: 30_000, maxSockets: 64 });
    try {
      const metadata = await client.modelMetadata();
      const body = encodeInferRequest(generateInputs(metadata.inputs, { batch: 1, seed: 3 }), { binary: true });
      // Low: 20/s for 2.5 s (the queue stays near empty: B̃ = 1 = B). High: 400/s, more than the instance serves, for
      // 3× the dwell time; at most 40 in flight, so the queue stays bounded (and B ≤ 32).
      const schedule = buildSchedule(
        {
          kind: "steps",
          steps: [
            { rate: 20, durationMs: 2500 },
            { rate: 400, durationMs: 3 * DWELL_MS },
          ],
          arrivals: "constant",
        },
        { durationMs: 2500 + 3 * DWELL_MS, seed: 1, maxRequests: 100_000 },
      );
      const run = await runOpenLoop({ schedule, send: () => client.send(body), maxInFlight: 40, warmupMs: 0 });
      expect(run.measured.ok).toBeGreaterThan(0);
    } finally {
      client.close();
    }
    // Heartbeats after the run carry the last proposals: wait for one to be recorded.
    const [proposal] = await until(async () => {
      const all = await estimatorProposals();
      return all.length ? all : undefined;
    }, "an estimator proposal");
    // Without traffic the agent settles (B̃ back to the running B = 1): the load no longer asks for the change, so
    // the proposal is withdrawn (not left for an SRE to approve), with the reason and the agent as the actor.
    await until(async () => {
      const timeline = deploymentLastReportColumn.read((await deployment()).lastReport)?.estimatorTimeline ?? [];
      return timeline.at(-1)?.stable === 1;
    }, "the estimator to settle");
    await until(
      async () => (await estimatorProposals()).every((x) => x.state === "withdrawn"),
      "the proposal to be withdrawn",
    );
    const all = await estimatorProposals();
    expect(all).toHaveLength(1);
    const p = all[0]!;
    expect(p.id).toBe(proposal!.id);
    expect(p.decisionComment).toBe("its stable batch size is back to B = 1, the one the deployment runs");
    const withdrawn = await db().auditEvent.findFirstOrThrow({
      where: { targetId: p.id, action: "proposal.withdraw" },
    });
    expect(withdrawn).toMatchObject({ actorType: "agent", actorId: agentId });
    await expect(as(sre).proposals.approve({ proposalId: p.id })).rejects.toThrow();
    expect(p.batchSize).toBeGreaterThanOrEqual(2);
    expect(p.reason).toBe(`estimator: stable batch size 1 → ${p.batchSize}`);
    expect(p.blockedReason).toBeNull();
    // The optimizer's plan for that B on the profile: one instance on all T cores, b = B (L = 1 + 4B/T).
    const T = (await db().agent.findUniqueOrThrow({ where: { id: agentId } })).allowedCpus.length;
    expect(p.items).toMatchObject([{ count: 1, threads: T, batch: p.batchSize, latencyMs: 1 + (4 * p.batchSize) / T }]);
    expect(p.predictedLatencyMs).toBeCloseTo(1 + (4 * p.batchSize) / T, 9);
    // Every time the agent reported a proposal went into this one proposal: at least once, and never more often than
    // its decisions proposed (the rolling timeline, which metrics bring, once it holds the decision that proposed
    // last; two proposals between two reads of the serving process are one report).
    const stored = proposalEvidenceColumn.read(p.evidence);
    const evidence = stored.estimator!;
    const lastProposal = evidence.timeline.at(-1)!.tMs;
    const rolling = await until(async () => {
      const d = await db().deployment.findUniqueOrThrow({ where: { id: deploymentId } });
      const line = deploymentLastReportColumn.read(d.lastReport)?.estimatorTimeline ?? [];
      return line.some((x) => x.tMs === lastProposal) ? line : undefined;
    }, "the rolling timeline to hold the last proposing decision");
    const proposedTimes = rolling.filter((d) => d.outcome === "proposed" && d.tMs <= lastProposal).length;
    expect(evidence.reports).toBeGreaterThanOrEqual(1);
    expect(evidence.reports).toBeLessThanOrEqual(proposedTimes);
    // The timeline: the low phase (B̃ = B = 1) before the step, and the decision that proposed this B last.
    const timeline = evidence.timeline;
    expect(timeline.length).toBeGreaterThan(10);
    expect(timeline.some((d) => d.outcome === "stable-equals-current")).toBe(true);
    expect(timeline.at(-1)).toMatchObject({ outcome: "proposed", proposed: p.batchSize, current: 1 });
    expect(stored.change).toBe("batch-only");
    // The deployment page reads the rolling timeline and this proposal.
    const view = await as(ml).estimator.view({ deploymentId });
    expect(view.timeline.length).toBeGreaterThan(0);
    expect(view.proposals.map((x) => x.id)).toEqual([p.id]);
    expect(view.currentB).toBe(1);
    // The agent's actor created it; re-proposals of another B were audited as updates.
    const created = await db().auditEvent.findFirstOrThrow({ where: { targetId: p.id, action: "proposal.create" } });
    expect(created).toMatchObject({ actorType: "agent", actorId: agentId });
  });

  it("an auto-approve policy leaves an out-of-bounds proposal pending, and applies an in-bounds one", async () => {
    await expect(
      as(ml).estimator.setPolicy({
        deploymentId,
        mode: "auto_approve",
        minBatch: 1,
        maxBatch: 16,
        singleStep: true,
        changes: "scale_only",
        maxPerHour: 1,
      }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      as(sre).estimator.setPolicy({
        deploymentId,
        mode: "auto_approve",
        minBatch: 32,
        maxBatch: 16,
        singleStep: true,
        changes: "scale_only",
        maxPerHour: 1,
      }),
    ).rejects.toThrow(/maxBatch/);
    await as(sre).estimator.setPolicy({
      deploymentId,
      mode: "auto_approve",
      minBatch: 1,
      maxBatch: 16,
      singleStep: true,
      changes: "scale_only",
      maxPerHour: 1,
    });
    expect(await db().auditEvent.count({ where: { action: "approval_policy.update", targetId: deploymentId } })).toBe(
      1,
    );

    // Out of bounds: B = 64 (a new proposal: the last one was withdrawn) stays pending, saying why.
    const out = await recordEstimatorProposal(deploymentId, {
      batchSize: 64,
      decision: decision(64, 1),
      timeline: [decision(64, 1)],
    });
    expect(out).toMatchObject({ kind: "created", autoApproved: false });
    const pendingOnes = async () => (await estimatorProposals()).filter((x) => x.state === "pending");
    const [pending] = await pendingOnes();
    expect(await pendingOnes()).toHaveLength(1);
    expect(pending).toMatchObject({ state: "pending", batchSize: 64, reason: "estimator: stable batch size 1 → 64" });
    expect(pending!.policyNote).toBe(
      "auto-approval refused: B = 64 is outside the policy's bounds [1, 16]; 1 → 64 is more than one doubling or halving",
    );
    expect((await deployment()).generation).toBe(1);

    // In bounds: 1 → 2 (the pending proposal becomes B = 2), one doubling, only the batch changes: approved by the
    // policy, through the approve path.
    const inside = await recordEstimatorProposal(deploymentId, {
      batchSize: 2,
      decision: decision(2, 1),
      timeline: [decision(2, 1)],
    });
    expect(inside).toMatchObject({ kind: "updated", autoApproved: true });
    const d = await deployment();
    expect(d.generation).toBe(2);
    await serving(2);
    const applied = await until(async () => {
      const p = await db().proposal.findUniqueOrThrow({ where: { id: pending!.id } });
      return p.state === "applied" ? p : undefined;
    }, "the auto-approved proposal to apply");
    expect(applied).toMatchObject({ batchSize: 2, decidedById: null, appliedGeneration: 2, policyNote: null });
    expect(applied.autoApprovedPolicy).toMatchObject({
      mode: "auto_approve",
      minBatch: 1,
      maxBatch: 16,
      singleStep: true,
      changes: "scale_only",
      maxPerHour: 1,
    });
    const events = await db().auditEvent.findMany({ where: { targetId: pending!.id }, orderBy: { id: "asc" } });
    const auto = events.find((e) => e.action === "proposal.auto_approve");
    expect(auto).toMatchObject({ actorType: "system", actorLabel: "approval policy" });
    expect((auto!.after as { policy: { maxBatch: number } }).policy.maxBatch).toBe(16);
    expect(events.map((e) => e.action).at(-1)).toBe("proposal.applied");
    const generation = await db().deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId, generation: 2 } },
    });
    expect(generation.label).toBe("proposal: estimator: stable batch size 1 → 2");
    expect((generation.plan as { batchSize?: number }).batchSize).toBe(2);

    // The hourly limit (1): the next in-bounds proposal (2 → 4) waits for an SRE, saying why.
    const limited = await recordEstimatorProposal(deploymentId, {
      batchSize: 4,
      decision: decision(4, 2),
      timeline: [decision(4, 2)],
    });
    expect(limited).toMatchObject({ kind: "created", autoApproved: false });
    const next = await db().proposal.findFirstOrThrow({ where: { deploymentId, state: "pending" } });
    expect(next.policyNote).toBe(
      "auto-approval refused: 1 auto-approval in the last hour reach the policy's limit of 1",
    );
    expect((await deployment()).generation).toBe(2);
  });

  it(
    "an estimator proposal is checked by a plan trial before it is offered; past the policy's rate it is offered without one, saying why",
    { timeout: 300_000 },
    async () => {
      await db().proposal.deleteMany({ where: { deploymentId } });
      await db().job.deleteMany({ where: { kind: "plan_trial" } });
      await as(sre).estimator.setPolicy({
        deploymentId,
        mode: "require_approval",
        minBatch: 1,
        maxBatch: 64,
        singleStep: true,
        changes: "scale_only",
        maxPerHour: 1,
      });
      const current = (await deployment()).generation;
      await serving(current);

      // The first proposal of the hour: trialing until the agent has measured its plans (the optimizer's top plans and
      // ⟨1,T,B⟩, run as served), then pending with the trial beside the prediction.
      const first = await recordEstimatorProposal(deploymentId, {
        batchSize: 8,
        decision: decision(8, 2),
        timeline: [decision(8, 2)],
      });
      expect(first).toMatchObject({ kind: "created", autoApproved: false });
      const queued = await db().proposal.findUniqueOrThrow({
        where: { id: (first as { proposalId: string }).proposalId },
      });
      expect(queued.state).toBe("trialing");
      const job = await db().job.findUniqueOrThrow({ where: { id: queued.trialJobId! } });
      expect(job).toMatchObject({ kind: "plan_trial", createdById: null });
      expect(job.params as { batch: number; deploymentId: string }).toMatchObject({ batch: 8, deploymentId });
      const offered = await until(
        async () => {
          const p = await db().proposal.findUniqueOrThrow({ where: { id: queued.id } });
          return p.state === "pending" ? p : undefined;
        },
        "the plan trial to settle",
        240_000,
      );
      const trial = offered.trial as {
        state: string;
        candidates: Array<{ measured: { meanMs: number } | null; predictedMs: number | null }>;
        verdict: unknown;
      };
      expect(trial.state).toBe("done");
      expect(trial.candidates.filter((c) => c.measured !== null).length).toBeGreaterThanOrEqual(1);
      expect(trial.verdict).not.toBeNull();

      // The estimator changes its mind (B = 16): the hour's one trial is spent, so it is offered on its predictions,
      // and says why.
      const second = await recordEstimatorProposal(deploymentId, {
        batchSize: 16,
        decision: decision(16, 2),
        timeline: [decision(16, 2)],
      });
      expect(second).toMatchObject({ kind: "updated", proposalId: queued.id });
      const updated = await db().proposal.findUniqueOrThrow({ where: { id: queued.id } });
      expect(updated).toMatchObject({ state: "pending", batchSize: 16, trialJobId: null, trial: null });
      expect(proposalEvidenceColumn.read(updated.evidence).trialNote).toBe(
        "no plan trial: 1 in the last hour already (the approval policy's rate is 1 an hour)",
      );
    },
  );
});
