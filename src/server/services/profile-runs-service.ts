// A profiling job as the agent runs it: claimed (with the cells already measured, so a requeued job resumes), its
// cells reported as they are measured (and the cut-short ones after a cancel), and finished; the profile's status
// follows. Lifecycle: queued → running → done | failed | cancelled.
import type { Prisma, PrismaClient } from "@/generated/prisma/client";
import { CUT_SHORT_STOP_REASON } from "@/core/profiling/stopping-rule";
import {
  PROFILE_JOB_KIND,
  profileJobParamsSchema,
  type ProfileCellReport,
  type ProfileJobParams,
} from "@/contracts/agent-jobs";
import { deploymentLastReportColumn } from "@/contracts/deployment-columns";
import { db } from "@/server/db/client";
import { conflict, invalidInput, notFound } from "@/server/errors/domain-errors";
import { notifyProfileOutcome } from "./profile-notifications";

/** A claimed profiling job as the agent gets it: its parameters and the cells already measured. */
export async function claimedProfile(job: { id: string; params: unknown }, prisma: PrismaClient = db()) {
  const params = profileJobParamsSchema.parse(job.params);
  const done = await prisma.profileCell.findMany({
    where: { profileId: params.profileId },
    select: { threads: true, batch: true, meanMs: true, ciHalfWidthMs: true },
  });
  // Traffic on the deployment while profiling: the profile is perturbed (shown beside it, and the optimizer warns).
  const profile = await prisma.profile.findUniqueOrThrow({ where: { id: params.profileId } });
  const deployment = profile.deploymentId
    ? await prisma.deployment.findUnique({ where: { id: profile.deploymentId } })
    : null;
  // On free CPUs the deployment's own traffic does not share the measured cores (other load there is counted per cell).
  const rate =
    profile.cpuPlacement === "free"
      ? 0
      : ((deployment ? deploymentLastReportColumn.read(deployment.lastReport)?.arrivalRatePerS : undefined) ?? 0);
  await prisma.profile.update({
    where: { id: profile.id },
    data: { status: "running", ...(rate > 0 ? { perturbed: true, perturbedRatePerS: rate } : {}) },
  });
  return { id: job.id, kind: PROFILE_JOB_KIND, params: { ...params, done } };
}

// Reads the job under a row lock, inside the caller's transaction: a cancel that lands while the agent reports
// waits for it (or the report waits for the cancel), so a cancelled job is never turned into partial or complete.
async function ownedRunningJob(agentId: string, jobId: string, tx: Prisma.TransactionClient) {
  await tx.$queryRaw`SELECT id FROM job WHERE id = ${jobId} FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== PROFILE_JOB_KIND) throw notFound("job", jobId);
  if (job.state === "cancelled") throw conflict("the job was cancelled");
  if (job.state !== "running") throw conflict(`the job is ${job.state}`);
  return { job, params: profileJobParamsSchema.parse(job.params) };
}

function assertCellsInGrid(params: ProfileJobParams, cells: readonly ProfileCellReport[]): void {
  const outside = cells.find((c) => !params.threads.includes(c.threads) || !params.batches.includes(c.batch));
  if (outside) throw invalidInput(`cell t=${outside.threads}, b=${outside.batch} is not in the job's grid`);
}

/** A reported cell as its row holds it (peak RSS as BigInt). */
const cellRow = (c: ProfileCellReport) => ({
  ...c,
  peakRssBytes: c.peakRssBytes === null ? null : BigInt(c.peakRssBytes),
});

/** How long after a cancel the agent may still hand in the cells it cut short. */
const CUT_SHORT_GRACE_MS = 120_000;

export async function recordProfileCells(
  agentId: string,
  jobId: string,
  cells: ProfileCellReport[],
  progress?: { round: number; measuring: number },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    if (cells.length > 0 && cells.every((c) => c.stopReason === CUT_SHORT_STOP_REASON)) {
      const kept = await keepCutShortCells(agentId, jobId, cells, tx);
      if (kept) return kept;
    }
    const { job, params } = await ownedRunningJob(agentId, jobId, tx);
    const total = params.threads.length * params.batches.length;
    if (cells.length === 0) {
      const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
      await tx.job.update({
        where: { id: job.id },
        data: {
          progressMessage: `${measured} / ${total} cells; round ${progress?.round ?? "?"}, ${progress?.measuring ?? "?"} cells measuring`,
        },
      });
      return { measured, total };
    }
    assertCellsInGrid(params, cells);
    for (const c of cells) {
      const data = cellRow(c);
      await tx.profileCell.upsert({
        where: { profileId_threads_batch: { profileId: params.profileId, threads: c.threads, batch: c.batch } },
        create: { profileId: params.profileId, ...data },
        update: data,
      });
    }
    const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
    const last = cells[cells.length - 1]!;
    await tx.job.update({
      where: { id: job.id },
      data: {
        progress: measured / total,
        progressMessage: `${measured} / ${total} cells; last t=${last.threads}, b=${last.batch}`,
      },
    });
    return { measured, total };
  });
}

// The cells a cancel cut short, handed in by the agent right after it learned of the cancel: kept beside the
// finished ones (never over them), the profile stays cancelled. Null when the job is not a recently cancelled one
// of this agent's (the cells then go the normal way, and are refused there).
async function keepCutShortCells(
  agentId: string,
  jobId: string,
  cells: ProfileCellReport[],
  tx: Prisma.TransactionClient,
) {
  await tx.$queryRaw`SELECT id FROM job WHERE id = ${jobId} FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== PROFILE_JOB_KIND || job.state !== "cancelled") return null;
  if (!job.finishedAt || Date.now() - job.finishedAt.getTime() > CUT_SHORT_GRACE_MS)
    throw conflict("the job was cancelled too long ago to hand in cut-short cells");
  const params = profileJobParamsSchema.parse(job.params);
  assertCellsInGrid(params, cells);
  await tx.profileCell.createMany({
    data: cells.map((c) => ({ profileId: params.profileId, ...cellRow(c) })),
    skipDuplicates: true,
  });
  const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
  return { measured, total: params.threads.length * params.batches.length };
}

export async function finishProfileJob(
  agentId: string,
  jobId: string,
  outcome: "done" | "failed",
  error: string | undefined,
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const { job, params } = await ownedRunningJob(agentId, jobId, tx);
    const measured = await tx.profileCell.count({ where: { profileId: params.profileId } });
    const total = params.threads.length * params.batches.length;
    const reason =
      outcome === "failed" ? (error ?? "failed") : measured < total ? `only ${measured} of ${total} cells` : null;
    await tx.job.update({
      where: { id: job.id },
      data: {
        state: outcome === "done" && measured === total ? "done" : "failed",
        error: reason,
        finishedAt: new Date(),
        progress: measured / total,
      },
    });
    const status = measured === total ? "complete" : measured > 0 ? "partial" : "failed";
    await tx.profile.update({ where: { id: params.profileId }, data: { status, finishedAt: new Date() } });
    await notifyProfileOutcome(tx, params.profileId, { status, measured, total, reason });
    return { ok: true as const };
  });
}
