// Profiling as users ask for it: an ML engineer requests a (threads × batch) sweep of a model version on an agent,
// inside a deployment's core budget (a queued job and its profile), cancels it, deletes a finished profile; and what
// a profile is labelled with (hardware class, runtime signature). The agent's side of the job:
// profile-runs-service.ts; the queue it is claimed from: agent-jobs-service.ts.
import { artifactFormatOf } from "@/core/model-bundle/bundle";
import { randomUUID } from "node:crypto";
import { checkDimensionValues } from "@/core/model-analysis/serving-axes";
import { versionServingAxes } from "./model-serving-axes";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { ruleForPreset, type RulePresetName } from "@/core/profiling/stopping-rule";
import { selectProfilingCpus } from "@/core/profiling/cpu-selection";
import { DEFAULT_PROFILE_MAX_BATCH, PROFILE_BATCH_LIMIT, profileBatchesUpTo } from "@/core/profiling/profile-grid";
import { summarizeTopology } from "@/core/topology/topology-queries";
import { agentTopology } from "@/contracts/host-topology";
import type { StoredJsonValue } from "@/contracts/json-column";
import { profileDimensionsColumn, profileStoppingRuleColumn, servingDimsColumn } from "@/contracts/model-columns";
import { profileJobColumn } from "@/contracts/job-columns";
import { PROFILE_JOB_KIND, type ProfileJobParams } from "@/contracts/agent-jobs";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { budgetCores } from "./deployment-plans";
import { notifyProfileOutcome } from "./profile-notifications";
import type { ServiceCaller } from "./users-service";

export function hardwareClassOf(agent: { cpuModel: string; topology: StoredJsonValue }): string {
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
export async function profilingCpusFor(
  deployment: {
    id: string;
    agentId: string;
    cpus: number[];
    agent: { topology: StoredJsonValue; allowedCpus: number[] };
  },
  coresNeeded: number,
  prisma: PrismaClient | Prisma.TransactionClient = db(),
) {
  const others = await prisma.deployment.findMany({
    where: { agentId: deployment.agentId, removedAt: null },
    select: { cpus: true },
  });
  return selectProfilingCpus({
    topology: agentTopology(deployment.agent),
    allowedCpus: deployment.agent.allowedCpus,
    budgetCpus: deployment.cpus,
    deploymentBudgets: others.map((d) => d.cpus),
    coresNeeded,
  });
}

export async function createProfileJob(caller: ServiceCaller, input: CreateProfileInput, prisma: PrismaClient = db()) {
  const deployment = await prisma.deployment.findUnique({
    where: { id: input.deploymentId },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
  const version = input.modelVersionId
    ? await prisma.modelVersion.findUnique({
        where: { id: input.modelVersionId },
        include: { artifact: true, model: true },
      })
    : await prisma.modelVersion.findUnique({
        where: { id: deployment.modelVersionId },
        include: { artifact: true, model: true },
      });
  if (!version) throw notFound("model version", input.modelVersionId ?? deployment.modelVersionId);
  if (version.modelId !== deployment.modelVersion.modelId)
    throw invalidInput("the version must be a version of the deployed model", { field: "modelVersionId" });
  const T = budgetCores(agentTopology(deployment.agent), deployment.cpus);
  const threads = [...new Set(input.threads ?? Array.from({ length: T }, (_, i) => i + 1))].sort((a, b) => a - b);
  if (threads.some((t) => t < 1 || t > T))
    throw invalidInput(`threads must be between 1 and the budget's ${T} cores`, { field: "threads" });
  const found = versionServingAxes(version.analysis);
  const batchable = found?.axes.batching ?? { batchable: true };
  // A model that cannot be batched is profiled at batch 1 only: the sweep is over threads.
  const asked =
    input.batches ?? (batchable.batchable ? profileBatchesUpTo(input.maxBatch ?? DEFAULT_PROFILE_MAX_BATCH) : [1]);
  const batches = [...new Set(asked)].sort((a, b) => a - b);
  if (batches.some((b) => b < 1 || b > PROFILE_BATCH_LIMIT))
    throw invalidInput(`batch sizes must be between 1 and ${PROFILE_BATCH_LIMIT}`, { field: "batches" });
  if (!batchable.batchable && batches.some((b) => b > 1)) {
    throw invalidInput(`this model cannot be batched (${batchable.reason}): profile batch 1 only`, {
      field: "batches",
    });
  }
  const rule = ruleForPreset(input.rule);
  const selection = await profilingCpusFor(deployment, Math.max(...threads), prisma);
  if (input.cpus === "free" && selection.kind !== "free")
    throw invalidInput(`no free CPUs to profile on: ${selection.reason}`, { field: "cpus" });
  const placement = input.cpus === "serving" ? "serving" : selection.kind;
  const measuredCpus = placement === "free" ? selection.cpus : deployment.cpus;
  const dimensions = { ...servingDimsColumn.read(version.servingDims), ...(input.dimensions ?? {}) };
  if (found) checkDimensionValues(found.axes, dimensions);
  const batchAxes = found && Object.keys(found.batchAxes).length ? { batchAxes: found.batchAxes } : {};
  return prisma.$transaction(async (tx) => {
    const jobId = randomUUID();
    const profile = await tx.profile.create({
      data: {
        id: randomUUID(),
        modelVersionId: version.id,
        jobId,
        agentId: deployment.agentId,
        deploymentId: deployment.id,
        dimensions: writeJsonColumn(profileDimensionsColumn, dimensions),
        hardwareClass: hardwareClassOf(deployment.agent),
        runtimeSignature: runtimeSignatureOf(deployment.agent),
        cores: T,
        threads,
        batches,
        stoppingRule: writeJsonColumn(profileStoppingRuleColumn, rule),
        status: "queued",
        createdById: caller.user.id,
        cpuPlacement: placement,
        measuredCpus,
      },
    });
    const params: ProfileJobParams = {
      profileId: profile.id,
      modelName: version.model.name,
      artifactSha256: version.artifactSha256,
      artifactBytes: Number(version.artifact.bytes),
      artifactFormat: artifactFormatOf(version.artifact.format),
      threads,
      batches,
      dimensions,
      ...batchAxes,
      rule,
      budgetCpus: measuredCpus,
      done: [],
    };
    await tx.job.create({
      data: {
        id: jobId,
        kind: PROFILE_JOB_KIND,
        params: writeJsonColumn(profileJobColumn, { ...params, agentId: deployment.agentId }),
        createdById: caller.user.id,
        progressMessage: `0 / ${threads.length * batches.length} cells`,
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "profile.create",
      target: {
        type: "profile",
        id: profile.id,
        label: `${version.model.name} v${version.number} on ${deployment.agent.hostName}`,
      },
      after: { threads, batches, rule: rule.kind, dimensions, cpus: placement, measuredCpus },
      requestId: caller.requestId,
    });
    await tx.$executeRaw`SELECT pg_notify('packrat_jobs', ${deployment.agentId})`;
    return { profileId: profile.id, jobId, cells: threads.length * batches.length };
  });
}

export async function cancelProfileJob(
  caller: ServiceCaller,
  input: { profileId: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const profile = await tx.profile.findUnique({ where: { id: input.profileId } });
    if (!profile || !profile.jobId) throw notFound("profile", input.profileId);
    await tx.$queryRaw`SELECT id FROM job WHERE id = ${profile.jobId} FOR UPDATE`;
    const job = await tx.job.findUniqueOrThrow({ where: { id: profile.jobId } });
    const mayCancel =
      profile.createdById === caller.user.id || caller.user.role === "sre" || caller.user.role === "admin";
    if (!mayCancel) throw new DomainError("FORBIDDEN", "only the job's creator, an sre or an admin can cancel it");
    if (job.state !== "queued" && job.state !== "running") throw conflict(`the job is already ${job.state}`);
    await tx.job.update({ where: { id: job.id }, data: { state: "cancelled", finishedAt: new Date() } });
    await tx.profile.update({ where: { id: profile.id }, data: { status: "cancelled", finishedAt: new Date() } });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "profile.cancel",
      target: { type: "profile", id: profile.id },
      before: { state: job.state },
      requestId: caller.requestId,
    });
    // Cancelled by someone else (an sre or an admin): the creator hears of it; their own cancel needs no message.
    if (profile.createdById && profile.createdById !== caller.user.id) {
      await notifyProfileOutcome(tx, profile.id, {
        status: "cancelled",
        measured: null,
        total: null,
        reason: `cancelled by ${caller.user.name}`,
      });
    }
    return { cancelled: true };
  });
}

export async function deleteProfile(caller: ServiceCaller, input: { profileId: string }, prisma: PrismaClient = db()) {
  return prisma.$transaction(async (tx) => {
    const profile = await tx.profile.findUnique({ where: { id: input.profileId } });
    if (!profile) throw notFound("profile", input.profileId);
    const mayDelete =
      profile.createdById === caller.user.id || caller.user.role === "sre" || caller.user.role === "admin";
    if (!mayDelete) throw new DomainError("FORBIDDEN", "only the profile's creator, an sre or an admin can delete it");
    if (profile.status === "running" || profile.status === "queued")
      throw conflict("cancel the job before deleting its profile");
    await tx.profile.delete({ where: { id: profile.id } });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "profile.delete",
      target: { type: "profile", id: profile.id },
      before: { status: profile.status },
      requestId: caller.requestId,
    });
    return { deleted: true };
  });
}
