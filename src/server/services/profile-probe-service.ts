// The profile form's pre-start estimate (issue #14): a short probe job on the deployment's agent, a few iterations
// of one cell (t = 1, b = 1) of the chosen version inside the deployment's core budget. The form scales the probe's
// mean by b / t per cell (core/profiling/stopping-rule estimateGridDurationMs). Probes are deduplicated (one open
// probe per agent, version, shape and budget) and a recent result is reused; an unclaimed probe expires.
import { artifactFormatOf } from "@/core/model-bundle/bundle";
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { PROFILE_PROBE_JOB_KIND, profileProbeParamsSchema, type ProfileCellReport } from "@/contracts/agent-jobs";
import { profileProbeJobColumn, profileProbeResultColumn, type StoredProbeParams } from "@/contracts/job-columns";
import { servingDimsColumn } from "@/contracts/model-columns";
import { db } from "@/server/db/client";
import { conflict, invalidInput, notFound } from "@/server/errors/domain-errors";
import type { ServiceCaller } from "./users-service";

/** t = 1, b = 1: one warm-up (session and allocator set-up), then three measured iterations. */
export const PROBE_CELL = { threads: 1, batch: 1, warmup: 1, iterations: 3 } as const;
/** A probe result this recent is reused for the same version, shape, host and budget. */
export const PROBE_REUSE_MS = 10 * 60_000;
/** A probe no agent claimed in this long is expired (an agent busy with a long job, or one too old to run probes). */
export const PROBE_CLAIM_TIMEOUT_MS = 60_000;

export interface ProbeView {
  probeId: string;
  state: "queued" | "running" | "done" | "failed" | "cancelled";
  /** Mean of the measured iterations at t = 1, b = 1, in ms (done only). */
  meanMs: number | null;
  /** Median of the measured iterations (robust to one preempted run on a busy host). */
  p50Ms: number | null;
  iterations: number | null;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

type JobRow = Awaited<ReturnType<PrismaClient["job"]["findFirstOrThrow"]>>;

function view(job: JobRow): ProbeView {
  const result = profileProbeResultColumn.read(job.result);
  return {
    probeId: job.id,
    state: job.state,
    meanMs: result?.meanMs ?? null,
    p50Ms: result?.p50Ms ?? null,
    iterations: result?.iterations ?? null,
    error: job.error,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}

/** Asks the deployment's agent for a probe of `modelVersionId` (default: the deployed one), or returns the open or recent one. */
export async function requestProfileProbe(
  caller: ServiceCaller,
  input: { deploymentId: string; modelVersionId?: string; dimensions?: Record<string, number> },
  prisma: PrismaClient = db(),
): Promise<ProbeView> {
  const deployment = await prisma.deployment.findUnique({
    where: { id: input.deploymentId },
    include: { modelVersion: true },
  });
  if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
  const version = await prisma.modelVersion.findUnique({
    where: { id: input.modelVersionId ?? deployment.modelVersionId },
    include: { artifact: true, model: true },
  });
  if (!version) throw notFound("model version", input.modelVersionId ?? deployment.modelVersionId);
  if (version.modelId !== deployment.modelVersion.modelId)
    throw invalidInput("the version must be a version of the deployed model", { field: "modelVersionId" });
  const dimensions = { ...servingDimsColumn.read(version.servingDims), ...(input.dimensions ?? {}) };
  const params: StoredProbeParams = {
    agentId: deployment.agentId,
    modelVersionId: version.id,
    deploymentId: deployment.id,
    modelName: version.model.name,
    artifactSha256: version.artifactSha256,
    artifactBytes: Number(version.artifact.bytes),
    artifactFormat: artifactFormatOf(version.artifact.format),
    dimensions,
    budgetCpus: deployment.cpus,
    ...PROBE_CELL,
  };
  return prisma.$transaction(async (tx) => {
    // One at a time per (agent, version): concurrent form openings share a probe.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`probe:${deployment.agentId}:${version.id}`}))`;
    const same = (
      await tx.job.findMany({
        where: {
          kind: PROFILE_PROBE_JOB_KIND,
          createdAt: { gte: new Date(Date.now() - PROBE_REUSE_MS) },
          state: { in: ["queued", "running", "done"] },
          params: { path: ["modelVersionId"], equals: version.id },
        },
        orderBy: { createdAt: "desc" },
      })
    ).filter((j) => {
      const p = profileProbeJobColumn.read(j.params);
      return (
        p.agentId === params.agentId &&
        JSON.stringify(p.dimensions) === JSON.stringify(params.dimensions) &&
        JSON.stringify(p.budgetCpus) === JSON.stringify(params.budgetCpus)
      );
    });
    const reusable = same.find(
      (j) => j.state !== "queued" || j.createdAt.getTime() > Date.now() - PROBE_CLAIM_TIMEOUT_MS,
    );
    if (reusable) return view(reusable);
    const job = await tx.job.create({
      data: {
        id: randomUUID(),
        kind: PROFILE_PROBE_JOB_KIND,
        params: writeJsonColumn(profileProbeJobColumn, params),
        createdById: caller.user.id,
        progressMessage: "waiting for the agent",
      },
    });
    await tx.$executeRaw`SELECT pg_notify('packrat_jobs', ${deployment.agentId})`;
    return view(job);
  });
}

/** The probe's state; a probe still unclaimed after PROBE_CLAIM_TIMEOUT_MS reads as failed (and is expired at the next claim). */
export async function getProfileProbe(probeId: string, prisma: PrismaClient = db()): Promise<ProbeView> {
  const job = await prisma.job.findUnique({ where: { id: probeId } });
  if (!job || job.kind !== PROFILE_PROBE_JOB_KIND) throw notFound("probe", probeId);
  if (job.state === "queued" && job.createdAt.getTime() < Date.now() - PROBE_CLAIM_TIMEOUT_MS) {
    return {
      ...view(job),
      state: "failed",
      error: "the agent did not pick the probe up in time (busy with another job?)",
    };
  }
  return view(job);
}

/** Before an agent claims: probes nobody claimed in time are failed, so an agent never runs one nobody awaits. */
export async function expireStaleProbes(prisma: PrismaClient = db()): Promise<number> {
  const r = await prisma.job.updateMany({
    where: {
      kind: PROFILE_PROBE_JOB_KIND,
      state: "queued",
      createdAt: { lt: new Date(Date.now() - PROBE_CLAIM_TIMEOUT_MS) },
    },
    data: { state: "failed", error: "expired: no agent claimed the probe in time", finishedAt: new Date() },
  });
  return r.count;
}

export function claimedProbe(job: { id: string; params: unknown }) {
  return { id: job.id, kind: PROFILE_PROBE_JOB_KIND, params: profileProbeParamsSchema.parse(job.params) };
}

async function ownedRunningProbe(agentId: string, jobId: string, tx: Prisma.TransactionClient) {
  await tx.$queryRaw`SELECT id FROM job WHERE id = ${jobId} FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== PROFILE_PROBE_JOB_KIND) throw notFound("job", jobId);
  if (job.state !== "running") throw conflict(`the probe is ${job.state}`);
  return job;
}

/** The probe's one cell: its mean becomes the result. */
export async function recordProbeCells(
  agentId: string,
  jobId: string,
  cells: ProfileCellReport[],
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const job = await ownedRunningProbe(agentId, jobId, tx);
    const params = profileProbeJobColumn.read(job.params);
    const cell = cells.find((c) => c.threads === params.threads && c.batch === params.batch);
    if (!cell || cells.length !== 1)
      throw invalidInput(`a probe reports exactly its one cell t=${params.threads}, b=${params.batch}`);
    await tx.job.update({
      where: { id: job.id },
      data: {
        result: writeJsonColumn(profileProbeResultColumn, {
          meanMs: cell.meanMs,
          p50Ms: cell.p50Ms,
          iterations: cell.iterations,
          threads: cell.threads,
          batch: cell.batch,
        }),
        progress: 1,
        progressMessage: "measured",
      },
    });
    return { measured: 1, total: 1 };
  });
}

export async function finishProbeJob(
  agentId: string,
  jobId: string,
  outcome: "done" | "failed",
  error: string | undefined,
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const job = await ownedRunningProbe(agentId, jobId, tx);
    const measured = job.result !== null;
    await tx.job.update({
      where: { id: job.id },
      data: {
        state: outcome === "done" && measured ? "done" : "failed",
        error: outcome === "failed" ? (error ?? "failed") : measured ? null : "the agent reported no cell",
        finishedAt: new Date(),
      },
    });
    return { ok: true as const };
  });
}
