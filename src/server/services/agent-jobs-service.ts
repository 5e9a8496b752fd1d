// The agents' side of the job queue, every kind alike: an agent's long-poll claims its next job (a lost agent's
// running jobs are released first), and what it reports about a job (cells, finish) goes to the service of the job's
// kind, looked up here so the routes do no queries.
import type { z } from "zod";
import {
  LOAD_TEST_JOB_KIND,
  PLAN_TRIAL_JOB_KIND,
  PROFILE_JOB_KIND,
  PROFILE_PROBE_JOB_KIND,
  type AgentJobKind,
  type finishJobSchema,
  type postCellsSchema,
} from "@/contracts/agent-jobs";
import type { PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { env } from "@/server/env";
import { invalidInput } from "@/server/errors/domain-errors";
import type { WaitSignal } from "@/core/cancellation/cancellation";
import { notifyHub } from "@/server/realtime/notify-hub";
import { releaseAgentJobs } from "./agent-restart-hooks";
import { claimedLoadTest, finishLoadTestJob } from "./load-tests-service";
import { claimedPlanTrial, finishTrialJob } from "./plan-trial-service";
import { claimedProbe, expireStaleProbes, finishProbeJob, recordProbeCells } from "./profile-probe-service";
import { claimedProfile, finishProfileJob, recordProfileCells } from "./profile-runs-service";

/** Marks running jobs of agents silent for longer than AGENT_LOST_TIMEOUT_MS: requeued once, failed the second time. */
export async function sweepLostAgents(prisma: PrismaClient = db()): Promise<number> {
  const cutoff = new Date(Date.now() - env().AGENT_LOST_TIMEOUT_MS);
  const lost = await prisma.job.findMany({
    where: { state: "running", agentId: { not: null } },
    select: { agentId: true },
  });
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
  return claimedProfile(job, prisma);
}

/**
 * Agents this process found nothing to claim for (by the kinds asked), valid within one generation of the LISTEN
 * connection and for NOTHING_TO_CLAIM_MS at most, so a poll of an idle agent costs no claim query. A job that may
 * become claimable NOTIFYs packrat_jobs: with the agent's id (its entries go), with a job's id (that job's agent is
 * looked up, one query per job transition, and its entries go) or 'queued' (released jobs: every entry goes). A
 * claim that a NOTIFY overtook is not remembered.
 */
const NOTHING_TO_CLAIM_MS = 5 * 60_000;
const nothingToClaim = new Map<string, { at: number; generation: number; kinds: string }>();
/** Bumped by every packrat_jobs NOTIFY: a claim that found nothing while one arrived is not remembered. */
let jobNotifications = 0;
let jobViewFed = false;
function forgetAll(): void {
  nothingToClaim.clear();
}
function feedJobView(): void {
  if (jobViewFed) return;
  jobViewFed = true;
  notifyHub().onChannel("packrat_jobs", (payload) => {
    jobNotifications++;
    if (payload === "queued") return forgetAll();
    if (nothingToClaim.delete(payload)) return;
    // A job's id (or an agent this process holds nothing about): whose job it is, if anyone's.
    void pgPool()
      .query<{ agentId: string | null }>({
        name: "packrat_job_agent",
        text: `SELECT COALESCE("agentId", params->>'agentId') AS "agentId" FROM job WHERE id = $1`,
        values: [payload],
      })
      .then(({ rows }) => {
        if (rows[0]?.agentId) nothingToClaim.delete(rows[0].agentId);
      })
      .catch(forgetAll);
  });
}

async function claimUnlessIdle(agentId: string, prisma: PrismaClient, kinds: readonly AgentJobKind[]) {
  const generation = await notifyHub().listeningGeneration();
  const key = kinds.join(",");
  const idle = nothingToClaim.get(agentId);
  if (idle && idle.generation === generation && idle.kinds === key && Date.now() - idle.at < NOTHING_TO_CLAIM_MS)
    return null;
  const seen = jobNotifications;
  const at = Date.now();
  const job = await claim(agentId, prisma, kinds);
  if (job) nothingToClaim.delete(agentId);
  else if (jobNotifications === seen && notifyHub().currentGeneration() === generation)
    nothingToClaim.set(agentId, { at, generation, kinds: key });
  return job;
}

/** Long-poll for the agent's next job; null when none arrives within `holdMs`. */
export async function claimNextJob(
  agentId: string,
  holdMs: number,
  signal?: WaitSignal,
  prisma: PrismaClient = db(),
  kinds: readonly AgentJobKind[] = [PROFILE_JOB_KIND],
) {
  feedJobView();
  const deadline = Date.now() + holdMs;
  if (kinds.includes(PROFILE_PROBE_JOB_KIND) && housekeepingDue("probes")) await expireStaleProbes(prisma);
  for (;;) {
    const subscription = await notifyHub().subscribe("packrat_jobs", agentId);
    try {
      const job = await claimUnlessIdle(agentId, prisma, kinds);
      if (job) return job;
      const left = deadline - Date.now();
      if (left <= 0 || signal?.aborted || !(await subscription.wait(left, signal))) return null;
    } finally {
      subscription.cancel();
    }
  }
}

// Fleet-wide housekeeping a poll does on the way (lost agents' jobs, unclaimed probes): at most once per interval
// per process, not once per poll of every agent; the scheduled sweep catches what no poll does.
const lastHousekeeping = new Map<string, number>();
function housekeepingDue(what: string): boolean {
  const every = Math.min(5_000, env().AGENT_LOST_TIMEOUT_MS / 4);
  const now = Date.now();
  if (now - (lastHousekeeping.get(what) ?? 0) < every) return false;
  lastHousekeeping.set(what, now);
  return true;
}

/** GET /jobs/next: jobs of agents gone silent are released first, then the long-poll for this agent's next job. */
export async function nextJobForAgent(
  agentId: string,
  kinds: readonly AgentJobKind[],
  holdMs: number,
  signal?: WaitSignal,
  prisma: PrismaClient = db(),
) {
  if (housekeepingDue("lost-agents")) await sweepLostAgents(prisma);
  return { job: await claimNextJob(agentId, holdMs, signal, prisma, kinds) };
}

const kindOf = async (jobId: string, prisma: PrismaClient) =>
  (await prisma.job.findUnique({ where: { id: jobId }, select: { kind: true } }))?.kind;

/** POST /jobs/{id}/cells: a profile's measured cells (or progress), or a duration probe's one cell. */
export async function recordJobCells(
  agentId: string,
  jobId: string,
  report: z.infer<typeof postCellsSchema>,
  prisma: PrismaClient = db(),
) {
  if ((await kindOf(jobId, prisma)) === PROFILE_PROBE_JOB_KIND) {
    if (report.cells.length === 0)
      throw invalidInput("a duration probe reports its cell, not progress", { field: "cells" });
    return recordProbeCells(agentId, jobId, report.cells, prisma);
  }
  return recordProfileCells(agentId, jobId, report.cells, report.progress, prisma);
}

/** POST /jobs/{id}/finish: the agent is done with a job of any kind (or gives up, with the reason). */
export async function finishAgentJob(
  agentId: string,
  jobId: string,
  report: z.infer<typeof finishJobSchema>,
  prisma: PrismaClient = db(),
) {
  const kind = await kindOf(jobId, prisma);
  const finish =
    kind === LOAD_TEST_JOB_KIND
      ? finishLoadTestJob
      : kind === PROFILE_PROBE_JOB_KIND
        ? finishProbeJob
        : kind === PLAN_TRIAL_JOB_KIND
          ? finishTrialJob
          : finishProfileJob;
  return finish(agentId, jobId, report.outcome, report.error, prisma);
}
