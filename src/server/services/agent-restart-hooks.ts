// What happens when an agent comes back with a new boot id (it restarted) or goes silent: the jobs it was running
// return to the queue once (they resume where they stopped); a second loss fails them. Never left running.
import { PLAN_TRIAL_JOB_KIND, PROFILE_JOB_KIND } from "@/contracts/agent-jobs";
import { profileJobColumn } from "@/contracts/job-columns";
import type { PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { notifyProfileOutcome } from "./profile-notifications";
import { trialLost } from "./plan-trial-service";

export async function releaseAgentJobs(
  agentId: string,
  reason: string,
  prisma: PrismaClient = db(),
): Promise<{ requeued: number; failed: number }> {
  return prisma.$transaction(async (tx) => {
    const running = await tx.job.findMany({ where: { agentId, state: "running" } });
    let requeued = 0;
    let failed = 0;
    for (const job of running) {
      if (job.attempts >= 2) {
        await tx.job.update({
          where: { id: job.id },
          data: { state: "failed", error: `agent lost (${reason}) twice`, finishedAt: new Date() },
        });
        const profileId = job.kind === PROFILE_JOB_KIND ? profileJobColumn.read(job.params).profileId : undefined;
        if (profileId) {
          // The profile ends with the job: its measured cells are kept (partial), or none were (failed).
          const measured = await tx.profileCell.count({ where: { profileId } });
          const status = measured > 0 ? "partial" : "failed";
          await tx.profile.updateMany({
            where: { id: profileId, status: { in: ["queued", "running"] } },
            data: { status, finishedAt: new Date() },
          });
          await notifyProfileOutcome(tx, profileId, {
            status,
            measured,
            total: null,
            reason: `agent lost (${reason}) twice`,
          });
        }
        // A plan trial's proposal is offered on its predictions alone, saying the trial was lost.
        if (job.kind === PLAN_TRIAL_JOB_KIND) await trialLost(tx, job, `agent lost (${reason}) twice`);
        failed++;
      } else {
        await tx.job.update({
          where: { id: job.id },
          data: { state: "queued", agentId: null, progressMessage: `requeued: ${reason}` },
        });
        requeued++;
      }
    }
    if (requeued) await tx.$executeRaw`SELECT pg_notify('packrat_jobs', 'queued')`;
    return { requeued, failed };
  });
}

export async function onAgentRestarted(agentId: string): Promise<void> {
  await releaseAgentJobs(agentId, "the agent restarted");
}
