// Job rows as the dashboard shows them: state, progress, what it is doing, its error or result.
import type { PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { notFound } from "@/server/errors/domain-errors";

export interface JobView {
  id: string;
  kind: string;
  state: "queued" | "running" | "done" | "failed" | "cancelled";
  progress: number;
  progressMessage: string | null;
  error: string | null;
  result: unknown;
  params: unknown;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

type Row = Awaited<ReturnType<PrismaClient["job"]["findFirstOrThrow"]>>;

const view = (j: Row): JobView => ({
  id: j.id,
  kind: j.kind,
  state: j.state,
  progress: j.progress,
  progressMessage: j.progressMessage,
  error: j.error,
  result: j.result,
  params: j.params,
  attempts: j.attempts,
  createdAt: j.createdAt,
  startedAt: j.startedAt,
  finishedAt: j.finishedAt,
});

export async function getJob(id: string, prisma: PrismaClient = db()): Promise<JobView> {
  const job = await prisma.job.findUnique({ where: { id } });
  if (!job) throw notFound("job", id);
  return view(job);
}

/** The latest jobs of a kind, newest first. */
export async function listJobs(
  input: { kind: string; limit?: number },
  prisma: PrismaClient = db(),
): Promise<JobView[]> {
  const jobs = await prisma.job.findMany({
    where: { kind: input.kind },
    orderBy: { createdAt: "desc" },
    take: Math.min(Math.max(input.limit ?? 20, 1), 100),
  });
  return jobs.map(view);
}
