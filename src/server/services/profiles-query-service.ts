// Reading profiles: one with its cells and job progress, the profiles of a model, and compatibility with a
// deployment (a stale-profile banner, or the optimizer's refusal, names what differs).
import type { PrismaClient } from "@/generated/prisma/client";
import { agentTopology } from "@/contracts/host-topology";
import { profileQuality } from "@/core/profiling/profile-quality";
import { estimateGridDurationMs, type StoppingRule } from "@/core/profiling/stopping-rule";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";
import { budgetCores } from "./deployment-plans";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";
import { profileDimensionsColumn, profileStoppingRuleColumn } from "@/contracts/model-columns";

export async function getProfile(id: string, prisma: PrismaClient = db()) {
  const profile = await prisma.profile.findUnique({
    where: { id },
    include: { cells: { orderBy: [{ threads: "asc" }, { batch: "asc" }] }, modelVersion: { include: { model: true } } },
  });
  if (!profile) throw notFound("profile", id);
  const job = profile.jobId ? await prisma.job.findUnique({ where: { id: profile.jobId } }) : null;
  const agent = await prisma.agent.findUnique({ where: { id: profile.agentId }, select: { hostName: true } });
  const total = profile.threads.length * profile.batches.length;
  // ETA from finished cells: their mean wall time per cell (measured by creation times) × cells left.
  const times = profile.cells.map((c) => c.createdAt.getTime()).sort((a, b) => a - b);
  const started = job?.startedAt?.getTime();
  const perCellMs = started && times.length ? (times[times.length - 1]! - started) / times.length : null;
  return {
    id: profile.id,
    status: profile.status,
    perturbed: profile.perturbed,
    perturbedRatePerS: profile.perturbedRatePerS,
    model: {
      id: profile.modelVersion.modelId,
      name: profile.modelVersion.model.name,
      version: profile.modelVersion.number,
      versionId: profile.modelVersionId,
      syntheticWeights: profile.modelVersion.syntheticWeights,
    },
    agent: { id: profile.agentId, hostName: agent?.hostName ?? "(decommissioned)" },
    deploymentId: profile.deploymentId,
    dimensions: profileDimensionsColumn.read(profile.dimensions),
    hardwareClass: profile.hardwareClass,
    runtimeSignature: profile.runtimeSignature,
    cores: profile.cores,
    threads: profile.threads,
    batches: profile.batches,
    stoppingRule: profileStoppingRuleColumn.read(profile.stoppingRule),
    createdAt: profile.createdAt,
    finishedAt: profile.finishedAt,
    createdById: profile.createdById,
    job: job
      ? {
          id: job.id,
          state: job.state,
          progress: job.progress,
          message: job.progressMessage,
          error: job.error,
          attempts: job.attempts,
        }
      : null,
    cellsDone: profile.cells.length,
    cellsTotal: total,
    etaMs: perCellMs !== null && profile.status === "running" ? perCellMs * (total - profile.cells.length) : null,
    cells: profile.cells.map((c) => ({
      threads: c.threads,
      batch: c.batch,
      meanMs: c.meanMs,
      p50Ms: c.p50Ms,
      p90Ms: c.p90Ms,
      p99Ms: c.p99Ms,
      stddevMs: c.stddevMs,
      ciHalfWidthMs: c.ciHalfWidthMs,
      iterations: c.iterations,
      stopReason: c.stopReason,
      peakRssBytes: c.peakRssBytes === null ? null : Number(c.peakRssBytes),
      rounds: c.rounds,
      interferencePct: c.interferencePct,
      flagged: c.flagged,
      remeasured: c.remeasured,
    })),
    quality: profileQuality(profile.cells),
    measuredOn: { placement: profile.cpuPlacement, cpus: profile.measuredCpus },
  };
}

export async function listProfilesForModel(modelId: string, prisma: PrismaClient = db()) {
  const profiles = await prisma.profile.findMany({
    where: { modelVersion: { modelId } },
    orderBy: { createdAt: "desc" },
    include: { modelVersion: true, _count: { select: { cells: true } } },
  });
  return profiles.map((p) => ({
    id: p.id,
    version: p.modelVersion.number,
    status: p.status,
    perturbed: p.perturbed,
    hardwareClass: p.hardwareClass,
    cores: p.cores,
    cellsDone: p._count.cells,
    cellsTotal: p.threads.length * p.batches.length,
    createdAt: p.createdAt,
    agentId: p.agentId,
  }));
}

export interface Compatibility {
  compatible: boolean;
  differences: Array<{ field: string; profile: string; deployment: string }>;
}

/** What differs between the conditions a profile was measured in and a deployment's. Empty = usable. */
export async function compatibility(
  profileId: string,
  deploymentId: string,
  prisma: PrismaClient = db(),
): Promise<Compatibility> {
  const profile = await prisma.profile.findUnique({ where: { id: profileId } });
  if (!profile) throw notFound("profile", profileId);
  const deployment = await prisma.deployment.findUnique({
    where: { id: deploymentId },
    include: { agent: true, modelVersion: true },
  });
  if (!deployment) throw notFound("deployment", deploymentId);
  const differences: Compatibility["differences"] = [];
  const differ = (field: string, a: unknown, b: unknown) => {
    if (String(a) !== String(b)) differences.push({ field, profile: String(a), deployment: String(b) });
  };
  differ("model version", profile.modelVersionId, deployment.modelVersionId);
  differ(
    "input dimensions",
    JSON.stringify(profile.dimensions ?? {}),
    JSON.stringify(deployment.modelVersion.servingDims ?? {}),
  );
  differ("hardware class", profile.hardwareClass, hardwareClassOf(deployment.agent));
  differ("runtime signature", profile.runtimeSignature, runtimeSignatureOf(deployment.agent));
  differ("core budget (T)", profile.cores, budgetCores(agentTopology(deployment.agent), deployment.cpus));
  if (profile.status !== "complete")
    differences.push({ field: "completeness", profile: profile.status, deployment: "complete" });
  return { compatible: differences.length === 0, differences };
}

/** Before a job starts: a duration range from the last profile of this version (its b=1, t=1 cell) or a guess. */
export async function estimateProfileDuration(
  input: { modelVersionId: string; threads: number[]; batches: number[]; rule: StoppingRule },
  prisma: PrismaClient = db(),
) {
  const cell = await prisma.profileCell.findFirst({
    where: { profile: { modelVersionId: input.modelVersionId }, threads: 1, batch: 1 },
    orderBy: { createdAt: "desc" },
  });
  const probeMs = cell?.meanMs ?? null;
  return probeMs === null
    ? null
    : { probeMs, ...estimateGridDurationMs(probeMs, input.threads, input.batches, input.rule) };
}
