// The Job table's lifecycle: the state the UI reads. queued → running (claimed by exactly one worker, attempts + 1)
// → done | failed | cancelled. Every transition NOTIFYs packrat_jobs with the job's id, so a replica's long-poll
// or a page can wake. A running row is renewed (updatedAt) by its worker; a row not renewed within the lease has
// lost its worker (sweepStaleJobs).
import type { Job, Prisma, PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn, type JsonColumnInput } from "@/server/db/json-column";
import { db } from "@/server/db/client";
import { controlPlaneJobParamsColumn, controlPlaneJobResultColumn } from "@/contracts/job-columns";

export type JobRow = Job;

type Writer = Pick<Prisma.TransactionClient, "job" | "$executeRaw">;

async function notify(prisma: Pick<Prisma.TransactionClient, "$executeRaw">, id: string): Promise<void> {
  await prisma.$executeRaw`SELECT pg_notify('packrat_jobs', ${id})`;
}

/** A queued job row (in the caller's transaction, so it commits with whatever asked for it). */
export async function createJobRow(
  tx: Writer,
  input: { kind: string; params: JsonColumnInput<typeof controlPlaneJobParamsColumn>; createdById: string | null },
): Promise<JobRow> {
  const row = await tx.job.create({
    data: {
      kind: input.kind,
      params: writeJsonColumn(controlPlaneJobParamsColumn, input.params),
      createdById: input.createdById,
      progressMessage: "queued",
    },
  });
  await notify(tx, row.id);
  return row;
}

/** Takes a queued job for one worker: null when it is not queued any more (another worker has it, or it ended). */
export async function claimJob(id: string, prisma: PrismaClient = db()): Promise<JobRow | null> {
  const rows = await prisma.job.updateManyAndReturn({
    where: { id, state: "queued" },
    data: {
      state: "running",
      attempts: { increment: 1 },
      startedAt: new Date(),
      progress: 0,
      progressMessage: "started",
      error: null,
    },
  });
  if (rows[0]) await notify(prisma, id);
  return rows[0] ?? null;
}

/** Progress of a running job (0..1) with a line saying what it does; also renews its lease. */
export async function reportJobProgress(
  id: string,
  progress: number,
  message: string,
  prisma: PrismaClient = db(),
): Promise<void> {
  const clamped = Number.isFinite(progress) ? Math.min(1, Math.max(0, progress)) : 0;
  const updated = await prisma.job.updateMany({
    where: { id, state: "running" },
    data: { progress: clamped, progressMessage: message.slice(0, 500) },
  });
  if (updated.count) await notify(prisma, id);
}

/** Renews a running job's lease without changing what it shows. */
export async function renewJobLease(id: string, prisma: PrismaClient = db()): Promise<void> {
  await prisma.job.updateMany({ where: { id, state: "running" }, data: { updatedAt: new Date() } });
}

export async function completeJob(
  id: string,
  result: JsonColumnInput<typeof controlPlaneJobResultColumn> | undefined,
  message = "done",
  prisma: PrismaClient = db(),
): Promise<boolean> {
  const updated = await prisma.job.updateMany({
    where: { id, state: "running" },
    data: {
      state: "done",
      progress: 1,
      progressMessage: message,
      result: writeJsonColumn(controlPlaneJobResultColumn, result ?? null),
      finishedAt: new Date(),
    },
  });
  if (updated.count) await notify(prisma, id);
  return updated.count > 0;
}

export async function failJob(id: string, error: string, prisma: PrismaClient = db()): Promise<boolean> {
  const updated = await prisma.job.updateMany({
    where: { id, state: { in: ["queued", "running"] } },
    data: { state: "failed", error: error.slice(0, 2000), progressMessage: "failed", finishedAt: new Date() },
  });
  if (updated.count) await notify(prisma, id);
  return updated.count > 0;
}

/** Puts a running job back in the queue (its worker is stopping); false when it was not running. */
export async function requeueJob(id: string, reason: string, prisma: PrismaClient = db()): Promise<boolean> {
  const updated = await prisma.job.updateMany({
    where: { id, state: "running" },
    data: { state: "queued", progressMessage: `requeued: ${reason}` },
  });
  if (updated.count) await notify(prisma, id);
  return updated.count > 0;
}

export interface SweepResult {
  /** Jobs whose worker is gone, back in the queue (to be sent to a worker again). */
  requeued: string[];
  /** Jobs whose worker is gone for the last allowed time. */
  failed: string[];
  /** Queued jobs nobody has picked up within the lease (their queue message was lost): to be sent again. */
  resend: string[];
}

/**
 * Jobs of `kinds` run by control-plane workers (no agent) that have not been renewed within `leaseMs`: their worker
 * is gone (killed, crashed, its replica lost). Each goes back to the queue, or fails after `maxAttempts` tries.
 * Never leaves a job running without a live worker.
 */
export async function sweepStaleJobs(
  options: { kinds: readonly string[]; leaseMs: number; maxAttempts: number; now?: Date },
  prisma: PrismaClient = db(),
): Promise<SweepResult> {
  const now = options.now ?? new Date();
  const staleBefore = new Date(now.getTime() - options.leaseMs);
  const seconds = Math.round(options.leaseMs / 1000);
  const result: SweepResult = { requeued: [], failed: [], resend: [] };
  const stale = await prisma.job.findMany({
    where: { kind: { in: [...options.kinds] }, agentId: null, state: "running", updatedAt: { lt: staleBefore } },
  });
  for (const job of stale) {
    // Conditional on the row still being stale, so a worker that renews meanwhile keeps its job.
    const where = { id: job.id, state: "running" as const, updatedAt: { lt: staleBefore } };
    if (job.attempts >= options.maxAttempts) {
      const n = await prisma.job.updateMany({
        where,
        data: {
          state: "failed",
          finishedAt: now,
          progressMessage: "failed",
          error: `its worker stopped (no progress for ${seconds} s), ${job.attempts} time(s); not retried`,
        },
      });
      if (n.count) {
        result.failed.push(job.id);
        await notify(prisma, job.id);
      }
    } else {
      const n = await prisma.job.updateMany({
        where,
        data: { state: "queued", progressMessage: `requeued: its worker stopped (no progress for ${seconds} s)` },
      });
      if (n.count) {
        result.requeued.push(job.id);
        await notify(prisma, job.id);
      }
    }
  }
  const forgotten = await prisma.job.findMany({
    where: { kind: { in: [...options.kinds] }, agentId: null, state: "queued", updatedAt: { lt: staleBefore } },
    select: { id: true },
  });
  for (const { id } of forgotten) {
    await prisma.job.updateMany({ where: { id, state: "queued" }, data: { updatedAt: now } });
    result.resend.push(id);
  }
  return result;
}
