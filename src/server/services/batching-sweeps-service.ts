// Batching sweeps (issue #20): measured points for the batching page. A sweep is proposed like any configuration (a
// proposal row, source "sweep") and an SRE approves it under the same rules; approved, the control plane runs it as
// a state machine kept in batching_sweep and advanced after each agent heartbeat (and every minute, for a silent
// agent): per candidate a temporary generation, then a load-test job once the agent reports it applied; after the
// last point (or on any failure) a new generation restores the configuration the sweep started from. The sweep's
// own transitions lock its row, so two replicas' heartbeats never advance it twice. One sweep per deployment.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { generationPlanColumn } from "@/contracts/deployment-columns";
import { proposalEvidenceColumn, proposalItemsColumn, proposalPlanColumn } from "@/contracts/proposal-columns";
import { sweepCandidatesColumn, sweepPointsColumn, type SweepPoint } from "@/contracts/batching-sweep-columns";
import { loadgenReportSchema, type LoadTestSpec } from "@/contracts/agent-jobs";
import { planBatchSize } from "@/contracts/serving-plan";
import { recordAudit, userActor, type AuditActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, invalidInput, notFound } from "@/server/errors/domain-errors";
import {
  describeCandidate,
  sweepCandidateSchema,
  sweepPointPlan,
  SWEEP_LIMITS,
  type SweepCandidate,
} from "./batching-sweep-plan";
import { writeGeneration } from "./deployments-service";
import { queueLoadTest } from "./load-tests-service";
import { summarizeLoadgenReport } from "./load-test-report";
import type { ServiceCaller } from "./users-service";

type Tx = Prisma.TransactionClient;
type SweepRow = Prisma.BatchingSweepGetPayload<object>;
const SYSTEM: AuditActor = { type: "system", label: "batching sweep" };
const PROPOSAL_TTL_MS = 24 * 3_600_000;
/** A temporary generation the agent has not reported applied (or failed) by then fails the sweep. */
const APPLY_DEADLINE_MS = 5 * 60_000;
/** A point's load test starts this long after the agent reported its generation applied (new sessions warm up). */
const SETTLE_MS = 2_000;
/** Past its duration, a point's load test gets this long (queueing, the generator's start, the last deadlines). */
const LOAD_GRACE_MS = 5 * 60_000;
export const ACTIVE_SWEEP_STATES = ["pending", "running", "restoring"] as const;
const RUNNING_STATES = ["running", "restoring"];

export type { SweepPoint };

export interface ProposeSweepInput {
  deploymentId: string;
  candidates: SweepCandidate[];
  durationS: number;
  ratePerS: number;
  reason: string;
}

function validate(input: ProposeSweepInput): ProposeSweepInput {
  const reason = input.reason.trim();
  if (!reason) throw invalidInput("say why (reason must not be empty)", { field: "reason" });
  if (input.candidates.length < 1)
    throw invalidInput("give at least one (window, max batch) candidate", { field: "candidates" });
  if (input.candidates.length > SWEEP_LIMITS.maxCandidates)
    throw invalidInput(`at most ${SWEEP_LIMITS.maxCandidates} candidates per sweep`, { field: "candidates" });
  const candidates = input.candidates.map((c, i) => {
    const parsed = sweepCandidateSchema.safeParse(c);
    if (!parsed.success)
      throw invalidInput(`candidate ${i + 1}: ${parsed.error.issues[0]!.message}`, { field: "candidates" });
    return parsed.data;
  });
  const keys = candidates.map((c) => `${c.windowMs}/${c.maxBatch}`);
  const repeated = keys.find((k, i) => keys.indexOf(k) !== i);
  if (repeated)
    throw invalidInput(`candidate ${repeated.replace("/", " ms / ")} is listed twice`, { field: "candidates" });
  if (
    !Number.isInteger(input.durationS) ||
    input.durationS < SWEEP_LIMITS.minDurationS ||
    input.durationS > SWEEP_LIMITS.maxDurationS
  ) {
    throw invalidInput(
      `the duration per point must be a whole number of seconds, ${SWEEP_LIMITS.minDurationS}…${SWEEP_LIMITS.maxDurationS}`,
      { field: "durationS" },
    );
  }
  if (!(input.ratePerS > 0) || input.ratePerS > SWEEP_LIMITS.maxRatePerS)
    throw invalidInput(`the offered rate must be > 0 and at most ${SWEEP_LIMITS.maxRatePerS} requests/s`, {
      field: "ratePerS",
    });
  return { ...input, reason, candidates };
}

/** The sweep that holds the deployment (proposed, running or restoring), if any: one at a time. */
export function activeSweep(
  deploymentId: string,
  prisma: PrismaClient | Tx = db(),
  states: readonly string[] = ACTIVE_SWEEP_STATES,
) {
  return prisma.batchingSweep.findFirst({ where: { deploymentId, state: { in: [...states] } } });
}

export async function proposeSweep(caller: ServiceCaller, raw: ProposeSweepInput, prisma: PrismaClient = db()) {
  const input = validate(raw);
  return prisma.$transaction(async (tx) => {
    // The deployment row's lock serialises two proposals for one deployment (one sweep at a time).
    await tx.$queryRaw`SELECT id FROM deployment WHERE id = ${input.deploymentId} FOR UPDATE`;
    const deployment = await tx.deployment.findUnique({
      where: { id: input.deploymentId },
      include: { modelVersion: { include: { model: true } }, agent: true },
    });
    if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
    if (deployment.state !== "serving")
      throw conflict(`the deployment is ${deployment.state}: a sweep needs it serving its current generation`);
    const other = await activeSweep(deployment.id, tx);
    if (other) throw conflict(`one sweep per deployment at a time: sweep ${other.id} is ${other.state}`);
    const running = await tx.deploymentGeneration.findUniqueOrThrow({
      where: { deploymentId_generation: { deploymentId: deployment.id, generation: deployment.generation } },
    });
    const plan = generationPlanColumn.read(running.plan);
    const proposalId = randomUUID();
    const sweepId = randomUUID();
    const sweep = { candidates: input.candidates, durationS: input.durationS, ratePerS: input.ratePerS, sweepId };
    // The proposal's configuration is the one restored at the end: the running plan.
    await tx.proposal.create({
      data: {
        id: proposalId,
        deploymentId: deployment.id,
        items: writeJsonColumn(
          proposalItemsColumn,
          plan.instances.map(({ count, threads, batch }) => ({ count, threads, batch })),
        ),
        plan: writeJsonColumn(proposalPlanColumn, plan),
        batchSize: planBatchSize(plan),
        batchTimeoutMs: plan.batchTimeoutMs,
        baseGeneration: deployment.generation,
        evidence: writeJsonColumn(proposalEvidenceColumn, { sweep }),
        reason: input.reason,
        source: "sweep",
        proposedById: caller.user.id,
        expiresAt: new Date(Date.now() + PROPOSAL_TTL_MS),
      },
    });
    await tx.batchingSweep.create({
      data: {
        id: sweepId,
        proposalId,
        deploymentId: deployment.id,
        candidates: writeJsonColumn(sweepCandidatesColumn, input.candidates),
        durationS: input.durationS,
        ratePerS: input.ratePerS,
        baseGeneration: deployment.generation,
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "proposal.create",
      target: {
        type: "proposal",
        id: proposalId,
        label: `batching sweep of ${deployment.modelVersion.model.name} on ${deployment.agent.hostName}`,
      },
      after: { deploymentId: deployment.id, sweep, baseGeneration: deployment.generation, reason: input.reason },
      requestId: caller.requestId,
    });
    return { proposalId, sweepId };
  });
}

async function expirePending(tx: Tx, deploymentId: string, except: string): Promise<number> {
  const r = await tx.proposal.updateMany({
    where: { deploymentId, state: "pending", id: { not: except } },
    data: { state: "expired", outcomeAt: new Date() },
  });
  return r.count;
}

const candidatesOf = (sweep: SweepRow) => sweepCandidatesColumn.read(sweep.candidates);
const pointsOf = (sweep: SweepRow) => sweepPointsColumn.read(sweep.points);

async function writePointGeneration(tx: Tx, sweep: SweepRow, index: number): Promise<number> {
  const deployment = await tx.deployment.findUniqueOrThrow({ where: { id: sweep.deploymentId } });
  const base = await tx.deploymentGeneration.findUniqueOrThrow({
    where: { deploymentId_generation: { deploymentId: sweep.deploymentId, generation: sweep.baseGeneration } },
  });
  const candidate = candidatesOf(sweep)[index]!;
  const plan = sweepPointPlan(generationPlanColumn.read(base.plan), candidate);
  return writeGeneration(tx, deployment, {
    modelVersionId: base.modelVersionId,
    plan,
    createdById: null,
    label: `batching sweep ${index + 1}/${candidatesOf(sweep).length} (temporary): ${describeCandidate(candidate)}`,
  });
}

/**
 * Called from the approve path (proposals-service) inside its transaction, the proposal row locked: checks the
 * deployment is free, expires the deployment's other pending proposals, and writes the first temporary generation.
 */
export async function startApprovedSweep(
  tx: Tx,
  proposal: { id: string; deploymentId: string },
  by: { actor: AuditActor; userId: string | null; requestId?: string; comment?: string },
) {
  const [sweep] = await tx.$queryRaw<
    SweepRow[]
  >`SELECT * FROM batching_sweep WHERE "proposalId" = ${proposal.id} FOR UPDATE`;
  if (!sweep) throw notFound("batching sweep of proposal", proposal.id);
  const other = await tx.batchingSweep.findFirst({
    where: { deploymentId: sweep.deploymentId, state: { in: RUNNING_STATES }, id: { not: sweep.id } },
  });
  if (other) throw conflict(`one sweep per deployment at a time: sweep ${other.id} is ${other.state}`);
  const expired = await expirePending(tx, sweep.deploymentId, proposal.id);
  const generation = await writePointGeneration(tx, sweep, 0);
  const now = new Date();
  await tx.batchingSweep.update({
    where: { id: sweep.id },
    data: {
      state: "running",
      pointIndex: 0,
      phase: "applying",
      pointGeneration: generation,
      phaseStartedAt: now,
      startedAt: now,
      expiredProposals: expired,
    },
  });
  await tx.proposal.update({
    where: { id: proposal.id },
    data: { state: "applying", decidedById: by.userId, decidedAt: now, decisionComment: by.comment ?? null },
  });
  await recordAudit(tx, {
    actor: by.actor,
    action: "proposal.approve",
    target: { type: "proposal", id: proposal.id },
    before: { state: "pending", generation: sweep.baseGeneration },
    after: {
      state: "applying",
      sweepId: sweep.id,
      firstPointGeneration: generation,
      expiredPendingProposals: expired,
      comment: by.comment ?? null,
    },
    requestId: by.requestId,
  });
  return { generation, sweepId: sweep.id, expiredProposals: expired };
}

/** A rejected or expired sweep proposal leaves its sweep cancelled (it never ran). */
export async function closeUnstartedSweeps(prisma: PrismaClient | Tx = db(), deploymentId?: string) {
  const stale = await prisma.batchingSweep.findMany({
    where: { state: "pending", ...(deploymentId ? { deploymentId } : {}) },
    select: { id: true, proposalId: true },
  });
  if (!stale.length) return;
  const closed = await prisma.proposal.findMany({
    where: { id: { in: stale.map((s) => s.proposalId) }, state: { in: ["rejected", "expired"] } },
    select: { id: true, state: true },
  });
  for (const p of closed) {
    await prisma.batchingSweep.updateMany({
      where: { proposalId: p.id, state: "pending" },
      data: { state: "cancelled", failureReason: `the proposal was ${p.state}`, finishedAt: new Date() },
    });
  }
}

/** Starts the restore (a new generation copying the base) and records why, or fails outright if it cannot. */
async function beginRestore(tx: Tx, sweep: SweepRow, failure: string | null): Promise<void> {
  const deployment = await tx.deployment.findUniqueOrThrow({ where: { id: sweep.deploymentId } });
  if (deployment.removedAt) {
    await finish(
      tx,
      sweep,
      `${failure ?? "the sweep ended"}; the deployment was removed, so nothing was restored`,
      null,
    );
    return;
  }
  if (sweep.pointGeneration !== null && deployment.generation !== sweep.pointGeneration) {
    // Someone (a rollback, a version change) moved the deployment on: it is no longer on a sweep's generation, and
    // restoring over their change would undo it.
    await finish(
      tx,
      sweep,
      `${failure ?? "the sweep ended"}; the deployment moved on to generation ${deployment.generation} outside the sweep, so the sweep did not restore over it`,
      null,
    );
    return;
  }
  const base = await tx.deploymentGeneration.findUniqueOrThrow({
    where: { deploymentId_generation: { deploymentId: sweep.deploymentId, generation: sweep.baseGeneration } },
  });
  const generation = await writeGeneration(tx, deployment, {
    modelVersionId: base.modelVersionId,
    plan: generationPlanColumn.read(base.plan),
    createdById: null,
    label: `batching sweep: restore generation ${sweep.baseGeneration}${failure ? " after a failure" : ""}`,
  });
  await tx.batchingSweep.update({
    where: { id: sweep.id },
    data: {
      state: "restoring",
      phase: null,
      restoreGeneration: generation,
      phaseStartedAt: new Date(),
      failureReason: failure,
    },
  });
  await recordAudit(tx, {
    actor: SYSTEM,
    action: "batching_sweep.restore",
    target: { type: "deployment", id: sweep.deploymentId },
    before: { generation: deployment.generation },
    after: { generation, copyOf: sweep.baseGeneration, sweepId: sweep.id, failure },
  });
}

async function finish(tx: Tx, sweep: SweepRow, failure: string | null, restored: number | null): Promise<void> {
  const expired = await expirePending(tx, sweep.deploymentId, sweep.proposalId);
  const now = new Date();
  const outcome = failure ? "failed" : "done";
  const restoredNote =
    restored !== null
      ? `; the previous configuration (generation ${sweep.baseGeneration}) was restored as generation ${restored}`
      : "";
  await tx.batchingSweep.update({
    where: { id: sweep.id },
    data: {
      state: outcome,
      phase: null,
      finishedAt: now,
      failureReason: failure ? `${failure}${restoredNote}` : null,
      expiredProposals: sweep.expiredProposals + expired,
    },
  });
  await tx.proposal.update({
    where: { id: sweep.proposalId },
    data: {
      state: failure ? "failed" : "applied",
      outcomeAt: now,
      appliedGeneration: restored,
      failureReason: failure ? `${failure}${restoredNote}` : null,
    },
  });
  await recordAudit(tx, {
    actor: SYSTEM,
    action: failure ? "batching_sweep.fail" : "batching_sweep.finish",
    target: { type: "proposal", id: sweep.proposalId },
    after: {
      sweepId: sweep.id,
      points: pointsOf(sweep).length,
      restoredGeneration: restored,
      failure: failure ? `${failure}${restoredNote}` : null,
      expiredPendingProposals: sweep.expiredProposals + expired,
    },
  });
}

function loadSpec(sweep: SweepRow): LoadTestSpec {
  // Poisson arrivals at the planned rate: the arrival process the batching model assumes.
  return {
    mode: "open",
    pattern: "poisson",
    ratePerS: sweep.ratePerS,
    durationS: sweep.durationS,
    binary: true,
    batch: 1,
  };
}

function measuredPoint(
  sweep: SweepRow,
  row: { id: string; status: string; error: string | null; report: Prisma.JsonValue },
  jobError: string | null,
): SweepPoint {
  const candidate = candidatesOf(sweep)[sweep.pointIndex]!;
  const base = { ...candidate, generation: sweep.pointGeneration!, loadTestId: row.id };
  const parsed = row.status === "done" && row.report ? loadgenReportSchema.safeParse(row.report) : null;
  const open = parsed?.success ? summarizeLoadgenReport(parsed.data).open : undefined;
  if (!open)
    return {
      ...base,
      status: "failed",
      offeredPerS: null,
      okPerS: null,
      p50Ms: null,
      p99Ms: null,
      meanMs: null,
      requests: null,
      error: row.error ?? jobError ?? "the load test has no open-loop result",
    };
  return {
    ...base,
    status: "done",
    offeredPerS: open.offeredPerS,
    okPerS: open.okPerS,
    p50Ms: open.latency.p50Ms,
    p99Ms: open.latency.p99Ms,
    meanMs: open.latency.meanMs,
    requests: open.latency.count,
    error: null,
  };
}

/** One step of one sweep, under its row lock. Returns true when something changed. */
export async function advanceSweep(sweepId: string, prisma: PrismaClient = db()): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const [sweep] = await tx.$queryRaw<SweepRow[]>`SELECT * FROM batching_sweep WHERE id = ${sweepId} FOR UPDATE`;
    if (!sweep || !RUNNING_STATES.includes(sweep.state)) return false;
    const deployment = await tx.deployment.findUnique({
      where: { id: sweep.deploymentId },
      include: { agent: true, modelVersion: { include: { model: true } } },
    });
    const since = Date.now() - (sweep.phaseStartedAt?.getTime() ?? Date.now());
    if (!deployment || deployment.removedAt) {
      await finish(tx, sweep, "the deployment was removed during the sweep", null);
      return true;
    }
    const candidate = candidatesOf(sweep)[sweep.pointIndex];
    const label = candidate ? `point ${sweep.pointIndex + 1} (${describeCandidate(candidate)})` : "";

    if (sweep.state === "restoring") {
      const restore = await tx.deploymentGeneration.findUnique({
        where: { deploymentId_generation: { deploymentId: sweep.deploymentId, generation: sweep.restoreGeneration! } },
      });
      if (restore?.outcome === "applied") {
        await finish(tx, sweep, sweep.failureReason, sweep.restoreGeneration);
        return true;
      }
      if (restore?.outcome === "failed") {
        await finish(
          tx,
          sweep,
          `${sweep.failureReason ? `${sweep.failureReason}; ` : ""}the restore generation ${sweep.restoreGeneration} failed to apply (${restore.failureReason ?? "no reason given"}): roll the deployment back from its page`,
          null,
        );
        return true;
      }
      return false;
    }

    if (deployment.generation !== sweep.pointGeneration) {
      // beginRestore sees the move and ends the sweep without restoring over someone else's change.
      await beginRestore(tx, sweep, `stopped at ${label}`);
      return true;
    }

    if (sweep.phase === "applying") {
      const generation = await tx.deploymentGeneration.findUnique({
        where: { deploymentId_generation: { deploymentId: sweep.deploymentId, generation: sweep.pointGeneration } },
      });
      if (generation?.outcome === "failed") {
        await beginRestore(
          tx,
          sweep,
          `${label}: its temporary generation ${sweep.pointGeneration} failed to apply (${generation.failureReason ?? "no reason given"})`,
        );
        return true;
      }
      if (
        generation?.outcome === "applied" &&
        deployment.state === "serving" &&
        Date.now() - (generation.outcomeAt?.getTime() ?? 0) >= SETTLE_MS
      ) {
        const { loadTestId } = await queueLoadTest(tx, deployment, loadSpec(sweep), {
          actor: SYSTEM,
          userId: null,
          sweepId: sweep.id,
        });
        await tx.batchingSweep.update({
          where: { id: sweep.id },
          data: { phase: "loading", loadTestId, phaseStartedAt: new Date() },
        });
        return true;
      }
      if (since > APPLY_DEADLINE_MS) {
        await beginRestore(
          tx,
          sweep,
          `${label}: the agent did not apply generation ${sweep.pointGeneration} within ${APPLY_DEADLINE_MS / 60_000} min`,
        );
        return true;
      }
      return false;
    }

    // phase "loading"
    const row = await tx.loadTest.findUniqueOrThrow({ where: { id: sweep.loadTestId! } });
    const job = await tx.job.findUnique({ where: { id: row.jobId } });
    const ended =
      row.status === "done" ||
      row.status === "failed" ||
      row.status === "cancelled" ||
      job?.state === "failed" ||
      job?.state === "cancelled";
    if (!ended) {
      if (since > sweep.durationS * 1000 + LOAD_GRACE_MS) {
        await tx.job.updateMany({
          where: { id: row.jobId, state: { in: ["queued", "running"] } },
          data: { state: "failed", error: "the batching sweep gave up waiting", finishedAt: new Date() },
        });
        await beginRestore(
          tx,
          sweep,
          `${label}: its load test did not finish within ${sweep.durationS} s + ${LOAD_GRACE_MS / 60_000} min`,
        );
        return true;
      }
      return false;
    }
    const point = measuredPoint(sweep, row, job?.error ?? null);
    const points = [...pointsOf(sweep), point];
    await tx.batchingSweep.update({
      where: { id: sweep.id },
      data: { points: writeJsonColumn(sweepPointsColumn, points) },
    });
    const updated: SweepRow = { ...sweep, points };
    if (point.status === "failed") {
      await beginRestore(tx, updated, `${label}: its load test failed (${point.error})`);
      return true;
    }
    const next = sweep.pointIndex + 1;
    if (next >= candidatesOf(sweep).length) {
      await beginRestore(tx, updated, null);
      return true;
    }
    const generation = await writePointGeneration(tx, updated, next);
    await tx.batchingSweep.update({
      where: { id: sweep.id },
      data: {
        pointIndex: next,
        phase: "applying",
        pointGeneration: generation,
        loadTestId: null,
        phaseStartedAt: new Date(),
      },
    });
    return true;
  });
}

/** After a heartbeat (for its deployments) or on the minute: every running sweep is stepped until it waits. */
export async function advanceSweeps(deploymentId?: string, prisma: PrismaClient = db()): Promise<number> {
  // Called on every heartbeat with its deployment: only that deployment's sweeps (the scheduled job does them all).
  await closeUnstartedSweeps(prisma, deploymentId);
  const sweeps = await prisma.batchingSweep.findMany({
    where: { state: { in: RUNNING_STATES }, ...(deploymentId ? { deploymentId } : {}) },
    select: { id: true },
  });
  let steps = 0;
  for (const { id } of sweeps) {
    // A step that changed something may enable the next (a finished load test → the next generation).
    for (let i = 0; i < 4 && (await advanceSweep(id, prisma)); i++) steps++;
  }
  return steps;
}

/** An SRE stops a running sweep: its current load test is cancelled and the base configuration restored. */
export async function cancelSweep(caller: ServiceCaller, input: { sweepId: string }, prisma: PrismaClient = db()) {
  return prisma.$transaction(async (tx) => {
    const [sweep] = await tx.$queryRaw<SweepRow[]>`SELECT * FROM batching_sweep WHERE id = ${input.sweepId} FOR UPDATE`;
    if (!sweep) throw notFound("batching sweep", input.sweepId);
    if (sweep.state !== "running")
      throw conflict(
        `the sweep is ${sweep.state}${sweep.state === "pending" ? ": reject its proposal instead" : ", not running"}`,
      );
    if (sweep.loadTestId) {
      const row = await tx.loadTest.findUniqueOrThrow({ where: { id: sweep.loadTestId } });
      await tx.job.updateMany({
        where: { id: row.jobId, state: { in: ["queued", "running"] } },
        data: { state: "cancelled", error: `cancelled by ${caller.user.email}`, finishedAt: new Date() },
      });
      await tx.loadTest.updateMany({
        where: { id: row.id, status: { in: ["queued", "running"] } },
        data: { status: "cancelled", error: `cancelled by ${caller.user.email}`, finishedAt: new Date() },
      });
    }
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "batching_sweep.cancel",
      target: { type: "proposal", id: sweep.proposalId },
      before: { state: "running", pointIndex: sweep.pointIndex },
      requestId: caller.requestId,
    });
    await beginRestore(tx, sweep, `cancelled by ${caller.user.email} at point ${sweep.pointIndex + 1}`);
    const after = await tx.batchingSweep.findUniqueOrThrow({ where: { id: sweep.id } });
    return { state: after.state, restoreGeneration: after.restoreGeneration };
  });
}

export async function listSweeps(input: { deploymentId?: string }, prisma: PrismaClient = db()) {
  await closeUnstartedSweeps(prisma, input.deploymentId);
  const rows = await prisma.batchingSweep.findMany({
    where: input.deploymentId ? { deploymentId: input.deploymentId } : {},
    orderBy: { createdAt: "desc" },
    take: 50,
  });
  const proposals = await prisma.proposal.findMany({
    where: { id: { in: rows.map((r) => r.proposalId) } },
    select: { id: true, state: true, reason: true, proposedById: true, decidedById: true },
  });
  const users = await prisma.user.findMany({
    where: { id: { in: proposals.flatMap((p) => [p.proposedById, p.decidedById]).filter((x): x is string => !!x) } },
    select: { id: true, email: true },
  });
  const email = (id: string | null | undefined) => users.find((u) => u.id === id)?.email ?? null;
  return rows.map((r) => {
    const p = proposals.find((x) => x.id === r.proposalId);
    return {
      id: r.id,
      proposalId: r.proposalId,
      deploymentId: r.deploymentId,
      state: r.state,
      proposalState: p?.state ?? null,
      reason: p?.reason ?? "",
      proposedBy: email(p?.proposedById),
      approvedBy: email(p?.decidedById),
      candidates: candidatesOf(r),
      durationS: r.durationS,
      ratePerS: r.ratePerS,
      baseGeneration: r.baseGeneration,
      pointIndex: r.pointIndex,
      phase: r.phase,
      pointGeneration: r.pointGeneration,
      loadTestId: r.loadTestId,
      restoreGeneration: r.restoreGeneration,
      points: pointsOf(r),
      expiredProposals: r.expiredProposals,
      failureReason: r.failureReason,
      createdAt: r.createdAt,
      startedAt: r.startedAt,
      finishedAt: r.finishedAt,
    };
  });
}
