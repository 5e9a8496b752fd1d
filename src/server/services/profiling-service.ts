// Profiling jobs: an ML engineer asks for a (threads × batch) sweep of a model version on an agent, inside a
// deployment's core budget; the agent claims the job, measures cell by cell, and the control plane keeps the cells.
// Lifecycle: queued → running → done | failed | cancelled; a lost agent's job is requeued once, then failed.
import { artifactFormatOf } from "@/core/model-bundle/bundle";
import { randomUUID } from "node:crypto";
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { checkDimensionValues } from "@/core/model-analysis/serving-axes";
import { versionServingAxes } from "./model-serving-axes";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { toJsonColumn } from "@/server/db/json-column";
import { CUT_SHORT_STOP_REASON, ruleForPreset, type RulePresetName } from "@/core/profiling/stopping-rule";
import { selectProfilingCpus } from "@/core/profiling/cpu-selection";
import { DEFAULT_PROFILE_MAX_BATCH, profileBatchesUpTo } from "@/core/profiling/profile-grid";
import { summarizeTopology } from "@/core/topology/topology-queries";
import { agentTopology } from "@/contracts/host-topology";
import { profileJobParamsSchema, type AgentJobKind, type ProfileCellReport, type ProfileJobParams } from "@/contracts/agent-jobs";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { conflict, DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { notifyHub } from "@/server/realtime/notify-hub";
import { releaseAgentJobs } from "./agent-restart-hooks";
import { budgetCores } from "./deployment-plans";
import { claimedLoadTest, LOAD_TEST_JOB_KIND } from "./load-tests-service";
import { notifyProfileOutcome } from "./profile-notifications";
import { claimedProbe, expireStaleProbes, PROFILE_PROBE_JOB_KIND } from "./profile-probe-service";
import { claimedPlanTrial, PLAN_TRIAL_JOB_KIND } from "./plan-trial-service";
import type { ServiceCaller } from "./users-service";


export function hardwareClassOf(agent: { cpuModel: string; topology: unknown }): string {
  const s = summarizeTopology(agentTopology(agent));
  return `${agent.cpuModel.trim()} · ${s.sockets}S × ${s.physicalCores}C × ${s.maxThreadsPerCore}T`;
}

export function runtimeSignatureOf(agent: { ortVersion: string }): string {
  return `onnxruntime ${agent.ortVersion}; inter-op 1; sequential; spinning on`;
}


export interface CreateProfileInput {
  deploymentId: string;
  /** Any version of the deployed model (default: the one deployed). */
  modelVersionId?: string;
  threads?: number[];
  maxBatch?: number;
  batches?: number[];
  rule?: RulePresetName;
  dimensions?: Record<string, number>;
  /** "free": CPUs outside every deployment's budget (refused when there are not enough); "serving": the
   *  deployment's own cores. Default: free when there are enough, else serving. */
  cpus?: "free" | "serving";
}

/** Where a deployment's profile would be measured (the profile form shows it; a plan trial reuses it). */
export async function profilingCpusFor(deployment: { id: string; agentId: string; cpus: number[]; agent: { topology: unknown; allowedCpus: number[] } }, coresNeeded: number, prisma: PrismaClient | Prisma.TransactionClient = db()) {
  const others = await prisma.deployment.findMany({ where: { agentId: deployment.agentId, removedAt: null }, select: { cpus: true } });
  return selectProfilingCpus({
    topology: agentTopology(deployment.agent), allowedCpus: deployment.agent.allowedCpus, budgetCpus: deployment.cpus,
    deploymentBudgets: others.map((d) => d.cpus), coresNeeded,
  });
}

export async function createProfileJob(caller: ServiceCaller, input: CreateProfileInput, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({ where: { id: input.deploymentId }, include: { agent: true, modelVersion: { include: { model: true } } } });
  if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
  const version = input.modelVersionId ? await prisma.modelVersion.findUnique({ where: { id: input.modelVersionId }, include: { artifact: true, model: true } })
    : await prisma.modelVersion.findUnique({ where: { id: deployment.modelVersionId }, include: { artifact: true, model: true } });
  if (!version) throw notFound("model version", input.modelVersionId ?? deployment.modelVersionId);
  if (version.modelId !== deployment.modelVersion.modelId) throw invalidInput("the version must be a version of the deployed model", { field: "modelVersionId" });
  const T = budgetCores(agentTopology(deployment.agent), deployment.cpus);
  const threads = [...new Set(input.threads ?? Array.from({ length: T }, (_, i) => i + 1))].sort((a, b) => a - b);
  if (threads.some((t) => t < 1 || t > T)) throw invalidInput(`threads must be between 1 and the budget's ${T} cores`, { field: "threads" });
  const found = versionServingAxes(version.analysis);
  const batchable = found?.axes.batching ?? { batchable: true };
  // A model that cannot be batched is profiled at batch 1 only: the sweep is over threads.
  const asked = input.batches ?? (batchable.batchable ? profileBatchesUpTo(input.maxBatch ?? DEFAULT_PROFILE_MAX_BATCH) : [1]);
  const batches = [...new Set(asked)].sort((a, b) => a - b);
  if (batches.some((b) => b < 1 || b > 4096)) throw invalidInput("batch sizes must be between 1 and 4096", { field: "batches" });
  if (!batchable.batchable && batches.some((b) => b > 1)) {
    throw invalidInput(`this model cannot be batched (${batchable.reason}): profile batch 1 only`, { field: "batches" });
  }
  const rule = ruleForPreset(input.rule);
  const selection = await profilingCpusFor(deployment, Math.max(...threads), prisma);
  if (input.cpus === "free" && selection.kind !== "free") throw invalidInput(`no free CPUs to profile on: ${selection.reason}`, { field: "cpus" });
  const placement = input.cpus === "serving" ? "serving" : selection.kind;
  const measuredCpus = placement === "free" ? selection.cpus : deployment.cpus;
  const dimensions = { ...(version.servingDims as Record<string, number>), ...(input.dimensions ?? {}) };
  if (found) {
    try {
      checkDimensionValues(found.axes, dimensions);
    } catch (error) {
      if (error instanceof ModelAnalysisInputError) throw invalidInput(error.message, { field: error.parameter });
      throw error;
    }
  }
  const batchAxes = found && Object.keys(found.batchAxes).length ? { batchAxes: found.batchAxes } : {};
  return prisma.$transaction(async (tx) => {
    const jobId = randomUUID();
    const profile = await tx.profile.create({
      data: {
        id: randomUUID(), modelVersionId: version.id, jobId, agentId: deployment.agentId, deploymentId: deployment.id, dimensions: toJsonColumn(dimensions),
        hardwareClass: hardwareClassOf(deployment.agent), runtimeSignature: runtimeSignatureOf(deployment.agent), cores: T,
        threads, batches, stoppingRule: toJsonColumn(rule), status: "queued", createdById: caller.user.id, cpuPlacement: placement, measuredCpus,
      },
    });
    const params: ProfileJobParams = {
      profileId: profile.id, modelName: version.model.name, artifactSha256: version.artifactSha256, artifactBytes: Number(version.artifact.bytes),
      artifactFormat: artifactFormatOf(version.artifact.format), threads, batches, dimensions, ...batchAxes, rule, budgetCpus: measuredCpus, done: [],
    };
    await tx.job.create({ data: { id: jobId, kind: "profile", params: toJsonColumn({ ...params, agentId: deployment.agentId }), createdById: caller.user.id, progressMessage: `0 / ${threads.length * batches.length} cells` } });
    await recordAudit(tx, {
      actor: userActor(caller.user), action: "profile.create", target: { type: "profile", id: profile.id, label: `${version.model.name} v${version.number} on ${deployment.agent.hostName}` },
      after: { threads, batches, rule: rule.kind, dimensions, cpus: placement, measuredCpus }, requestId: caller.requestId,
    });
    await tx.$executeRaw`SELECT pg_notify('packrat_jobs', ${deployment.agentId})`;
    return { profileId: profile.id, jobId, cells: threads.length * batches.length };
  });
}

export async function cancelProfileJob(caller: ServiceCaller, input: { profileId: string }, prisma: PrismaClient = db()) {
  return prisma.$transaction(async (tx) => {
    const profile = await tx.profile.findUnique({ where: { id: input.profileId } });
    if (!profile || !profile.jobId) throw notFound("profile", input.profileId);
    await tx.$queryRaw`SELECT id FROM job WHERE id = ${profile.jobId} FOR UPDATE`;
    const job = await tx.job.findUniqueOrThrow({ where: { id: profile.jobId } });
    const mayCancel = profile.createdById === caller.user.id || caller.user.role === "sre" || caller.user.role === "admin";
    if (!mayCancel) throw new DomainError("FORBIDDEN", "only the job's creator, an sre or an admin can cancel it");
    if (job.state !== "queued" && job.state !== "running") throw conflict(`the job is already ${job.state}`);
    await tx.job.update({ where: { id: job.id }, data: { state: "cancelled", finishedAt: new Date() } });
    await tx.profile.update({ where: { id: profile.id }, data: { status: "cancelled", finishedAt: new Date() } });
    await recordAudit(tx, { actor: userActor(caller.user), action: "profile.cancel", target: { type: "profile", id: profile.id }, before: { state: job.state }, requestId: caller.requestId });
    // Cancelled by someone else (an sre or an admin): the creator hears of it; their own cancel needs no message.
    if (profile.createdById && profile.createdById !== caller.user.id) {
      await notifyProfileOutcome(tx, profile.id, { status: "cancelled", measured: null, total: null, reason: `cancelled by ${caller.user.name}` });
    }
    return { cancelled: true };
  });
}

export async function deleteProfile(caller: ServiceCaller, input: { profileId: string }, prisma: PrismaClient = db()) {
  return prisma.$transaction(async (tx) => {
    const profile = await tx.profile.findUnique({ where: { id: input.profileId } });
    if (!profile) throw notFound("profile", input.profileId);
    const mayDelete = profile.createdById === caller.user.id || caller.user.role === "sre" || caller.user.role === "admin";
    if (!mayDelete) throw new DomainError("FORBIDDEN", "only the profile's creator, an sre or an admin can delete it");
    if (profile.status === "running" || profile.status === "queued") throw conflict("cancel the job before deleting its profile");
    await tx.profile.delete({ where: { id: profile.id } });
    await recordAudit(tx, { actor: userActor(caller.user), action: "profile.delete", target: { type: "profile", id: profile.id }, before: { status: profile.status }, requestId: caller.requestId });
    return { deleted: true };
  });
}

/** Marks running jobs of agents silent for longer than AGENT_LOST_TIMEOUT_MS: requeued once, failed the second time. */
export async function sweepLostAgents(prisma: PrismaClient = db()): Promise<number> {
  const cutoff = new Date(Date.now() - env().AGENT_LOST_TIMEOUT_MS);
  const lost = await prisma.job.findMany({ where: { state: "running", agentId: { not: null } }, select: { agentId: true } });
  let released = 0;
  for (const agentId of new Set(lost.map((j) => j.agentId!))) {
    const agent = await prisma.agent.findUnique({ where: { id: agentId }, select: { lastHeartbeatAt: true } });
    if (!agent?.lastHeartbeatAt || agent.lastHeartbeatAt < cutoff) {
      const r = await releaseAgentJobs(agentId, "the agent stopped heartbeating", prisma);
      released += r.requeued + r.failed;
    }
  }
  return released;
}

// Job kinds agents run (src/contracts): an agent names those it knows when it polls (older agents: profiling only).
export { AGENT_JOB_KINDS, type AgentJobKind } from "@/contracts/agent-jobs";

async function claim(agentId: string, prisma: PrismaClient, kinds: readonly AgentJobKind[]) {
  // One statement: concurrent long-polls of one agent (or two replicas) cannot claim the same job. A probe (seconds,
  // with someone waiting on the form) goes before the queue's long jobs.
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    UPDATE job SET state = 'running', "agentId" = ${agentId}, attempts = attempts + 1, "startedAt" = COALESCE("startedAt", now()), "updatedAt" = now()
    WHERE id = (SELECT id FROM job WHERE state = 'queued' AND kind = ANY(${[...kinds]}::text[]) AND params->>'agentId' = ${agentId} ORDER BY (kind = ${PROFILE_PROBE_JOB_KIND}) DESC, (kind = ${PLAN_TRIAL_JOB_KIND}) DESC, "createdAt" LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING id`;
  const id = rows[0]?.id;
  if (!id) return null;
  const job = await prisma.job.findUniqueOrThrow({ where: { id } });
  if (job.kind === LOAD_TEST_JOB_KIND) return claimedLoadTest(job, prisma);
  if (job.kind === PROFILE_PROBE_JOB_KIND) return claimedProbe(job);
  if (job.kind === PLAN_TRIAL_JOB_KIND) return claimedPlanTrial(job);
  const params = profileJobParamsSchema.parse(job.params);
  const done = await prisma.profileCell.findMany({ where: { profileId: params.profileId }, select: { threads: true, batch: true, meanMs: true, ciHalfWidthMs: true } });
  // Traffic on the deployment while profiling: the profile is perturbed (shown beside it, and the optimizer warns).
  const profile = await prisma.profile.findUniqueOrThrow({ where: { id: params.profileId } });
  const deployment = profile.deploymentId ? await prisma.deployment.findUnique({ where: { id: profile.deploymentId } }) : null;
  // On free CPUs the deployment's own traffic does not share the measured cores (other load there is counted per cell).
  const rate = profile.cpuPlacement === "free" ? 0 : (deployment?.lastReport as { arrivalRatePerS?: number } | null)?.arrivalRatePerS ?? 0;
  await prisma.profile.update({ where: { id: profile.id }, data: { status: "running", ...(rate > 0 ? { perturbed: true, perturbedRatePerS: rate } : {}) } });
  return { id, kind: "profile" as const, params: { ...params, done } };
}

/** Long-poll for the agent's next job; null when none arrives within `holdMs`. */
export async function claimNextJob(agentId: string, holdMs: number, signal?: AbortSignal, prisma: PrismaClient = db(), kinds: readonly AgentJobKind[] = ["profile"]) {
  const deadline = Date.now() + holdMs;
  if (kinds.includes(PROFILE_PROBE_JOB_KIND)) await expireStaleProbes(prisma);
  for (;;) {
    const subscription = await notifyHub().subscribe("packrat_jobs", agentId);
    try {
      const job = await claim(agentId, prisma, kinds);
      if (job) return job;
      const left = deadline - Date.now();
      if (left <= 0 || signal?.aborted || !(await subscription.wait(left, signal))) return null;
    } finally {
      subscription.cancel();
    }
  }
}

// Reads the job under a row lock, inside the caller's transaction: a cancel that lands while the agent reports
// waits for it (or the report waits for the cancel), so a cancelled job is never turned into partial or complete.
async function ownedRunningJob(agentId: string, jobId: string, tx: Prisma.TransactionClient) {
  await tx.$queryRaw`SELECT id FROM job WHERE id = ${jobId} FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== "profile") throw notFound("job", jobId);
  if (job.state === "cancelled") throw conflict("the job was cancelled");
  if (job.state !== "running") throw conflict(`the job is ${job.state}`);
  return { job, params: profileJobParamsSchema.parse(job.params) };
}

function assertCellsInGrid(params: ProfileJobParams, cells: readonly ProfileCellReport[]): void {
  const outside = cells.find((c) => !params.threads.includes(c.threads) || !params.batches.includes(c.batch));
  if (outside) throw invalidInput(`cell t=${outside.threads}, b=${outside.batch} is not in the job's grid`);
}

/** A reported cell as its row holds it (peak RSS as BigInt). */
const cellRow = (c: ProfileCellReport) => ({ ...c, peakRssBytes: c.peakRssBytes === null ? null : BigInt(c.peakRssBytes) });

/** How long after a cancel the agent may still hand in the cells it cut short. */
const CUT_SHORT_GRACE_MS = 120_000;

export async function recordProfileCells(agentId: string, jobId: string, cells: ProfileCellReport[], progress?: { round: number; measuring: number }, prisma: PrismaClient = db()) {
  return prisma.$transaction(async (tx) => {
    if (cells.length > 0 && cells.every((c) => c.stopReason === CUT_SHORT_STOP_REASON)) {
      const kept = await keepCutShortCells(agentId, jobId, cells, tx);
      if (kept) return kept;
    }
    const { job, params } = await ownedRunningJob(agentId, jobId, tx);
    const total = params.threads.length * params.batches.length;
    if (cells.length === 0) {
      const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
      await tx.job.update({ where: { id: job.id }, data: { progressMessage: `${measured} / ${total} cells; round ${progress?.round ?? "?"}, ${progress?.measuring ?? "?"} cells measuring` } });
      return { measured, total };
    }
    assertCellsInGrid(params, cells);
    for (const c of cells) {
      const data = cellRow(c);
      await tx.profileCell.upsert({ where: { profileId_threads_batch: { profileId: params.profileId, threads: c.threads, batch: c.batch } }, create: { profileId: params.profileId, ...data }, update: data });
    }
    const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
    const last = cells[cells.length - 1]!;
    await tx.job.update({ where: { id: job.id }, data: { progress: measured / total, progressMessage: `${measured} / ${total} cells; last t=${last.threads}, b=${last.batch}` } });
    return { measured, total };
  });
}

// The cells a cancel cut short, handed in by the agent right after it learned of the cancel: kept beside the
// finished ones (never over them), the profile stays cancelled. Null when the job is not a recently cancelled one
// of this agent's (the cells then go the normal way, and are refused there).
async function keepCutShortCells(agentId: string, jobId: string, cells: ProfileCellReport[], tx: Prisma.TransactionClient) {
  await tx.$queryRaw`SELECT id FROM job WHERE id = ${jobId} FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== "profile" || job.state !== "cancelled") return null;
  if (!job.finishedAt || Date.now() - job.finishedAt.getTime() > CUT_SHORT_GRACE_MS) throw conflict("the job was cancelled too long ago to hand in cut-short cells");
  const params = profileJobParamsSchema.parse(job.params);
  assertCellsInGrid(params, cells);
  await tx.profileCell.createMany({ data: cells.map((c) => ({ profileId: params.profileId, ...cellRow(c) })), skipDuplicates: true });
  const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
  return { measured, total: params.threads.length * params.batches.length };
}

export async function finishProfileJob(agentId: string, jobId: string, outcome: "done" | "failed", error: string | undefined, prisma: PrismaClient = db()) {
  return prisma.$transaction(async (tx) => {
    const { job, params } = await ownedRunningJob(agentId, jobId, tx);
    const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
    const total = params.threads.length * params.batches.length;
    const reason = outcome === "failed" ? error ?? "failed" : measured < total ? `only ${measured} of ${total} cells` : null;
    await tx.job.update({ where: { id: job.id }, data: { state: outcome === "done" && measured === total ? "done" : "failed", error: reason, finishedAt: new Date(), progress: measured / total } });
    const status = measured === total ? "complete" : measured > 0 ? "partial" : "failed";
    await tx.profile.update({ where: { id: params.profileId }, data: { status, finishedAt: new Date() } });
    await notifyProfileOutcome(tx, params.profileId, { status, measured, total, reason });
    return { ok: true as const };
  });
}
