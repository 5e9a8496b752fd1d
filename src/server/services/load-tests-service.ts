// Load tests (issue #19): an ML engineer or SRE asks for load on a deployment; it runs as an agent job (kind
// 'load_test') — the agent runs the load generator against its own port and uploads the generator's JSON report,
// stored as it came. Load on a serving deployment reaches real clients' latency: it needs an explicit
// confirmation, and every start is audited. Lifecycle: queued → running → done | failed (a lost agent's job is
// requeued once, then failed, like profiling).
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import {
  LOAD_TEST_JOB_KIND,
  loadgenReportSchema,
  loadTestJobParamsSchema,
  loadTestSpecSchema,
  type LoadTestJobParams,
  type LoadTestSpec,
} from "@/contracts/agent-jobs";
import { generationPlanColumn } from "@/contracts/deployment-columns";
import { loadTestJobColumn } from "@/contracts/job-columns";
import { loadTestPlanAtStartColumn, loadTestReportColumn, loadTestSpecColumn } from "@/contracts/load-test-columns";
import { servingDimsColumn } from "@/contracts/model-columns";
import { recordAudit, userActor, type AuditActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { summarizeLoadgenReport } from "./load-test-report";
import type { ServiceCaller } from "./users-service";

export interface StartLoadTestInput {
  deploymentId: string;
  spec: LoadTestSpec;
  /** Required (true) when the deployment is serving: the load adds to its clients' traffic. */
  confirmServing?: boolean;
}

export async function startLoadTest(caller: ServiceCaller, input: StartLoadTestInput, prisma: PrismaClient = db()) {
  const spec = loadTestSpecSchema.parse(input.spec);
  const deployment = await prisma.deployment.findUnique({
    where: { id: input.deploymentId },
    include: { agent: true, modelVersion: { include: { model: true } } },
  });
  if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
  if (deployment.state !== "serving")
    throw conflict(`the deployment is ${deployment.state}: a load test needs it serving`);
  if (!input.confirmServing) {
    throw new DomainError(
      "PRECONDITION_FAILED",
      "this deployment is serving clients: confirm that the load test may add its load to theirs",
      { confirmationRequired: true },
    );
  }
  return prisma.$transaction((tx) =>
    queueLoadTest(tx, deployment, spec, {
      actor: userActor(caller.user),
      userId: caller.user.id,
      requestId: caller.requestId,
    }),
  );
}

type DeploymentForLoad = Prisma.DeploymentGetPayload<{
  include: { agent: true; modelVersion: { include: { model: true } } };
}>;

/**
 * Queues a load_test job for the deployment's agent and audits it, inside the caller's transaction: a user's start
 * (confirmed above) or a batching sweep's point (the SRE's approval of the sweep is the confirmation).
 */
export async function queueLoadTest(
  tx: Prisma.TransactionClient,
  deployment: DeploymentForLoad,
  spec: LoadTestSpec,
  by: { actor: AuditActor; userId: string | null; requestId?: string; sweepId?: string },
) {
  const model = deployment.modelVersion.model;
  const jobId = randomUUID();
  const loadTest = await tx.loadTest.create({
    data: {
      id: randomUUID(),
      jobId,
      deploymentId: deployment.id,
      agentId: deployment.agentId,
      modelVersionId: deployment.modelVersionId,
      modelName: model.name,
      spec: writeJsonColumn(loadTestSpecColumn, spec),
      confirmedServing: true,
      createdById: by.userId,
    },
  });
  const params: LoadTestJobParams = {
    loadTestId: loadTest.id,
    deploymentId: deployment.id,
    modelName: model.name,
    spec,
    dimensions: servingDimsColumn.read(deployment.modelVersion.servingDims ?? {}),
  };
  await tx.job.create({
    data: {
      id: jobId,
      kind: LOAD_TEST_JOB_KIND,
      params: writeJsonColumn(loadTestJobColumn, { ...params, agentId: deployment.agentId }),
      createdById: by.userId,
      progressMessage: "waiting for the agent",
    },
  });
  await recordAudit(tx, {
    actor: by.actor,
    action: "load_test.start",
    target: {
      type: "deployment",
      id: deployment.id,
      label: `${model.name} v${deployment.modelVersion.number} on ${deployment.agent.hostName}`,
    },
    after: {
      loadTestId: loadTest.id,
      spec,
      confirmedServing: true,
      generation: deployment.observedGeneration,
      ...(by.sweepId ? { sweepId: by.sweepId } : {}),
    },
    requestId: by.requestId,
  });
  await tx.$executeRaw`SELECT pg_notify('packrat_jobs', ${deployment.agentId})`;
  return { loadTestId: loadTest.id, jobId };
}

/** Called by the claim once a load_test job row is this agent's: records what it runs against. */
export async function claimedLoadTest(job: { id: string; params: unknown }, prisma: PrismaClient = db()) {
  const params = loadTestJobParamsSchema.parse(job.params);
  const deployment = await prisma.deployment.findUnique({ where: { id: params.deploymentId } });
  const generation = deployment?.observedGeneration ?? null;
  const plan = generation
    ? await prisma.deploymentGeneration.findUnique({
        where: { deploymentId_generation: { deploymentId: params.deploymentId, generation } },
      })
    : null;
  await prisma.loadTest.update({
    where: { id: params.loadTestId },
    data: {
      status: "running",
      startedAt: new Date(),
      generationAtStart: generation,
      planAtStart: plan
        ? writeJsonColumn(loadTestPlanAtStartColumn, { label: plan.label, plan: generationPlanColumn.read(plan.plan) })
        : Prisma.DbNull,
    },
  });
  await prisma.job.update({
    where: { id: job.id },
    data: { progressMessage: `running against generation ${generation ?? "?"}` },
  });
  return { id: job.id, kind: LOAD_TEST_JOB_KIND, params };
}

async function ownedRunningLoadTest(agentId: string, jobId: string, prisma: PrismaClient) {
  const job = await prisma.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== LOAD_TEST_JOB_KIND) throw notFound("job", jobId);
  if (job.state === "cancelled") throw conflict("the job was cancelled");
  if (job.state !== "running") throw conflict(`the job is ${job.state}`);
  return { job, params: loadTestJobParamsSchema.parse(job.params) };
}

/** POST /jobs/{id}/result: the generator's report, stored as it came; the job is done. */
export async function recordLoadTestResult(
  agentId: string,
  jobId: string,
  body: { report: unknown; generationAtEnd?: number },
  prisma: PrismaClient = db(),
) {
  const { job, params } = await ownedRunningLoadTest(agentId, jobId, prisma);
  const report = loadgenReportSchema.parse(body.report);
  if (report.model !== params.modelName)
    throw invalidInput(`the report is for model ${report.model}, the job for ${params.modelName}`);
  summarizeLoadgenReport(report); // a report the page cannot read (a corrupt histogram) is refused now, not shown broken later
  const now = new Date();
  await prisma.$transaction([
    prisma.loadTest.update({
      where: { id: params.loadTestId },
      data: {
        status: "done",
        report: writeJsonColumn(loadTestReportColumn, report),
        generationAtEnd: body.generationAtEnd ?? null,
        finishedAt: now,
      },
    }),
    prisma.job.update({
      where: { id: job.id },
      data: { state: "done", progress: 1, progressMessage: "report stored", finishedAt: now },
    }),
  ]);
  return { ok: true as const };
}

/** POST /jobs/{id}/finish for a load test: a failure (a success arrives with its report). */
export async function finishLoadTestJob(
  agentId: string,
  jobId: string,
  outcome: "done" | "failed",
  error: string | undefined,
  prisma: PrismaClient = db(),
) {
  const { job, params } = await ownedRunningLoadTest(agentId, jobId, prisma);
  const reason = outcome === "done" ? "the agent finished without uploading a report" : (error ?? "failed");
  const now = new Date();
  await prisma.$transaction([
    prisma.loadTest.update({
      where: { id: params.loadTestId },
      data: { status: "failed", error: reason, finishedAt: now },
    }),
    prisma.job.update({ where: { id: job.id }, data: { state: "failed", error: reason, finishedAt: now } }),
  ]);
  return { ok: true as const };
}

type LoadTestRow = Prisma.LoadTestGetPayload<object>;

/** The row's status, corrected by its job (a lost agent's job is requeued or failed by the job machinery). */
function statusOf(
  row: LoadTestRow,
  job: { state: string; error: string | null } | null,
): { status: string; error: string | null } {
  if (row.status === "done" || row.status === "failed" || row.status === "cancelled" || !job)
    return { status: row.status, error: row.error };
  if (job.state === "queued" || job.state === "running") return { status: job.state, error: null };
  return { status: job.state, error: job.error };
}

export async function getLoadTest(id: string, prisma: PrismaClient = db()) {
  const row = await prisma.loadTest.findUnique({ where: { id } });
  if (!row) throw notFound("load test", id);
  const [job, deployment, version, creator] = await Promise.all([
    prisma.job.findUnique({
      where: { id: row.jobId },
      select: { state: true, error: true, progressMessage: true, attempts: true },
    }),
    prisma.deployment.findUnique({
      where: { id: row.deploymentId },
      include: { agent: { select: { hostName: true } } },
    }),
    prisma.modelVersion.findUnique({
      where: { id: row.modelVersionId },
      include: { model: { select: { id: true, sloDeadlineMs: true, sloQuantile: true } } },
    }),
    row.createdById ? prisma.user.findUnique({ where: { id: row.createdById }, select: { email: true } }) : null,
  ]);
  const { status, error } = statusOf(row, job);
  const report = loadTestReportColumn.read(row.report);
  return {
    id: row.id,
    deploymentId: row.deploymentId,
    agentId: row.agentId,
    hostName: deployment?.agent.hostName ?? "(decommissioned)",
    model: {
      id: version?.model.id ?? null,
      name: row.modelName,
      version: version?.number ?? null,
      sloDeadlineMs: version?.model.sloDeadlineMs ?? null,
      sloQuantile: version?.model.sloQuantile ?? null,
    },
    spec: loadTestSpecColumn.read(row.spec),
    status,
    error,
    jobMessage: job?.progressMessage ?? null,
    attempts: job?.attempts ?? 0,
    generationAtStart: row.generationAtStart,
    generationAtEnd: row.generationAtEnd,
    planAtStart: loadTestPlanAtStartColumn.read(row.planAtStart),
    confirmedServing: row.confirmedServing,
    createdBy: creator?.email ?? null,
    createdAt: row.createdAt,
    startedAt: row.startedAt,
    finishedAt: row.finishedAt,
    summary: report ? summarizeLoadgenReport(report) : null,
    /** The raw report, for download. */
    report: row.report,
  };
}

export async function listLoadTestsForDeployment(deploymentId: string, prisma: PrismaClient = db()) {
  const rows = await prisma.loadTest.findMany({ where: { deploymentId }, orderBy: { createdAt: "desc" }, take: 50 });
  const jobs = await prisma.job.findMany({
    where: { id: { in: rows.map((r) => r.jobId) } },
    select: { id: true, state: true, error: true },
  });
  return rows.map((row) => {
    const { status, error } = statusOf(row, jobs.find((j) => j.id === row.jobId) ?? null);
    const report = loadTestReportColumn.read(row.report);
    const summary = report ? summarizeLoadgenReport(report) : null;
    return {
      id: row.id,
      status,
      error,
      spec: loadTestSpecColumn.read(row.spec),
      generationAtStart: row.generationAtStart,
      createdAt: row.createdAt,
      finishedAt: row.finishedAt,
      okPerS: summary?.open?.okPerS ?? null,
      p99Ms: summary?.open?.latency.p99Ms ?? null,
      maxRatePerS: summary?.search?.maxRatePerS ?? null,
    };
  });
}
