// Plan trials: before a proposal is offered, its deployment's agent runs the optimizer's top k plans, ⟨1,T,B⟩ and
// the running configuration (when it serves the same B) as they would be served, interleaved, and the proposal keeps
// what was measured beside what was predicted. When the trial contradicts the prediction beyond noise, the proposal
// becomes the measured best and says why. Lifecycle as a profile's: queued → running → done | failed | cancelled; a
// lost agent's trial is requeued once (it starts over), then failed. The proposal is 'trialing' until then.
import { artifactFormatOf, type ArtifactFormat } from "@/core/model-bundle/bundle";
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { PLAN_TRIAL_JOB_KIND, planTrialParamsSchema, type PlanTrialResult } from "@/contracts/agent-jobs";
import { planTrialJobColumn, planTrialResultColumn, type StoredTrialParams } from "@/contracts/job-columns";
import { profileDimensionsColumn } from "@/contracts/model-columns";
import { proposalItemsColumn, proposalPlanColumn, proposalTrialColumn } from "@/contracts/proposal-columns";
import type { ProposalTrial, TrialCandidateView } from "@/contracts/plan-trial";
import { planBatchSize, servingPlanSchema, type ServingPlan } from "@/contracts/serving-plan";
import type { ProfileCell } from "@/core/profile/profile";
import { agentTopology } from "@/contracts/host-topology";
import { trialCandidates } from "@/core/trial/candidate-plans";
import {
  correctedPrediction,
  fitContentionModel,
  planFeatures,
  type ContentionModel,
  type PlanGroupLatency,
  type TrialObservation,
} from "@/core/trial/contention-model";
import { estimateTrialMs } from "@/core/trial/trial-estimate";
import { trialVerdict, type TrialVerdict } from "@/core/trial/trial-verdict";

export type { ProposalTrial, TrialCandidateView };
import { meanConfidenceInterval } from "@/core/stats/confidence";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { log } from "@/server/log";
import { applyApprovalPolicy } from "./approval-policy-service";
import { allocatePlan } from "./deployment-plans";
import type { ServiceCaller } from "./users-service";

export const TRIAL_SETTINGS = {
  k: 3,
  rounds: 4,
  roundMs: 1500,
  settleMs: 150,
  minBatchesPerTurn: 3,
  warmupIterations: 3,
} as const;
/** The job's limit: this many times the estimate (a loaded host), never under a minute. */
const LIMIT_FACTOR = 3;
const MIN_LIMIT_MS = 60_000;
/** Past trials the per-host contention model is fitted on. */
const MODEL_TRIALS = 50;

/** What the control plane keeps in the job's params beside what the agent is sent (the job.params column). */
export type { StoredTrialParams };

const mean = (xs: readonly number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;

/** Observations of an agent's finished trials, for its contention model. */
export async function agentTrialObservations(
  agentId: string,
  prisma: PrismaClient | Prisma.TransactionClient = db(),
): Promise<TrialObservation[]> {
  const jobs = await prisma.job.findMany({
    where: { kind: PLAN_TRIAL_JOB_KIND, state: "done", params: { path: ["agentId"], equals: agentId } },
    orderBy: { finishedAt: "desc" },
    take: MODEL_TRIALS,
  });
  return jobs.flatMap((job) =>
    observationsOf(planTrialJobColumn.read(job.params), planTrialResultColumn.read(job.result)),
  );
}

function observationsOf(params: StoredTrialParams, result: PlanTrialResult | null): TrialObservation[] {
  if (!result) return [];
  return params.candidates.flatMap((c) => {
    const o = result.plans.find((p) => p.key === c.key);
    if (!o || o.error || o.turns.length === 0 || c.predictedMs === null) return [];
    return [
      {
        groups: c.groupLatencies,
        cores: params.cores,
        isolatedMs: c.predictedMs,
        instanceMs: mean(o.turns.map((t) => t.instanceMeanMs)),
        dispatchMs: mean(o.turns.map((t) => t.dispatchMeanMs)),
      },
    ];
  });
}

/** The per-host contention and overhead model from its past trials (the identity before the first). */
export async function agentContentionModel(
  agentId: string,
  prisma: PrismaClient | Prisma.TransactionClient = db(),
): Promise<ContentionModel> {
  return fitContentionModel(await agentTrialObservations(agentId, prisma));
}

export function correctedFor(
  model: ContentionModel,
  groups: readonly PlanGroupLatency[],
  isolatedMs: number | null,
  cores: number,
): number | null {
  return isolatedMs === null ? null : correctedPrediction(model, isolatedMs, planFeatures(groups, cores));
}

export interface TrialContext {
  agentId: string;
  deploymentId: string;
  proposalId: string;
  cells: ProfileCell[];
  cores: number;
  batch: number;
  budgetCpus: number[];
  dimensions: Record<string, number>;
  batchAxes?: Record<string, number | null>;
  running: ServingPlan;
  version: { modelName: string; artifactSha256: string; artifactBytes: number; artifactFormat: ArtifactFormat };
}

/** Plans the trial (candidates, estimate, limit) and queues its job, inside the proposing transaction. */
export async function queuePlanTrial(
  tx: Prisma.TransactionClient,
  ctx: TrialContext,
  createdById: string | null,
): Promise<{ jobId: string; estimateMs: number }> {
  const runningGroups =
    planBatchSize(ctx.running) === ctx.batch
      ? ctx.running.instances.map(({ count, threads, batch }) => ({ count, threads, batch }))
      : undefined;
  const raw = trialCandidates(ctx.cells, {
    cores: ctx.cores,
    batch: ctx.batch,
    k: TRIAL_SETTINGS.k,
    running: runningGroups,
  });
  const model = await agentContentionModel(ctx.agentId, tx);
  const latencyOf = (t: number, b: number) => ctx.cells.find((c) => c.threads === t && c.batch === b)?.latencyMs;
  const candidates = raw.slice(0, 8).map((c) => {
    const groupLatencies = c.groups.map((g) => ({ ...g, latencyMs: latencyOf(g.threads, g.batch) }));
    return { ...c, groupLatencies, correctedMs: correctedFor(model, groupLatencies, c.predictedMs, ctx.cores) };
  });
  const estimateMs = Math.round(
    estimateTrialMs({
      plans: candidates.map((c) => ({
        predictedMs: c.predictedMs,
        instances: c.groups.reduce((s, g) => s + g.count, 0),
      })),
      ...TRIAL_SETTINGS,
    }),
  );
  const params: StoredTrialParams = {
    modelName: ctx.version.modelName,
    artifactSha256: ctx.version.artifactSha256,
    artifactBytes: ctx.version.artifactBytes,
    artifactFormat: ctx.version.artifactFormat,
    batch: ctx.batch,
    dimensions: ctx.dimensions,
    ...(ctx.batchAxes && Object.keys(ctx.batchAxes).length ? { batchAxes: ctx.batchAxes } : {}),
    budgetCpus: ctx.budgetCpus,
    plans: candidates.map((c) => ({ key: c.key, groups: c.groups.map((g) => ({ ...g })) })),
    rounds: TRIAL_SETTINGS.rounds,
    roundMs: TRIAL_SETTINGS.roundMs,
    settleMs: TRIAL_SETTINGS.settleMs,
    minBatchesPerTurn: TRIAL_SETTINGS.minBatchesPerTurn,
    warmupIterations: TRIAL_SETTINGS.warmupIterations,
    maxDurationMs: Math.min(3_600_000, Math.max(MIN_LIMIT_MS, LIMIT_FACTOR * estimateMs)),
    agentId: ctx.agentId,
    proposalId: ctx.proposalId,
    deploymentId: ctx.deploymentId,
    cores: ctx.cores,
    estimateMs,
    model,
    candidates: candidates.map((c) => ({ ...c, groups: c.groups.map((g) => ({ ...g })), roles: [...c.roles] })),
  };
  const jobId = randomUUID();
  await tx.job.create({
    data: {
      id: jobId,
      kind: PLAN_TRIAL_JOB_KIND,
      params: writeJsonColumn(planTrialJobColumn, params),
      createdById,
      progressMessage: `waiting for the agent (about ${Math.ceil(estimateMs / 1000)} s once it starts)`,
    },
  });
  await tx.$executeRaw`SELECT pg_notify('packrat_jobs', ${ctx.agentId})`;
  return { jobId, estimateMs };
}

/** What a proposal's trial is planned from: the optimizer's answer for the deployment (its plan, the running one). */
export interface ProposalTrialInput {
  proposalId: string;
  deploymentId: string;
  profileId: string;
  optimized: { cores: number; batchSize: number; plan: ServingPlan; current: { plan: ServingPlan } };
  createdById: string | null;
}

/** Queues a proposal's plan trial and puts the proposal in 'trialing' (it is offered once the trial settles). */
export async function queueProposalTrial(
  tx: Prisma.TransactionClient,
  input: ProposalTrialInput,
): Promise<{ jobId: string; estimateMs: number }> {
  const deployment = await tx.deployment.findUniqueOrThrow({
    where: { id: input.deploymentId },
    include: { modelVersion: { include: { artifact: true, model: true } } },
  });
  const profile = await tx.profile.findUniqueOrThrow({ where: { id: input.profileId }, include: { cells: true } });
  const version = deployment.modelVersion;
  const trial = await queuePlanTrial(
    tx,
    {
      agentId: deployment.agentId,
      deploymentId: deployment.id,
      proposalId: input.proposalId,
      cores: input.optimized.cores,
      batch: input.optimized.batchSize,
      budgetCpus: deployment.cpus,
      cells: profile.cells.map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.meanMs })),
      dimensions: profileDimensionsColumn.read(profile.dimensions),
      ...(input.optimized.plan.batchAxes ? { batchAxes: input.optimized.plan.batchAxes } : {}),
      running: input.optimized.current.plan,
      version: {
        modelName: version.model.name,
        artifactSha256: version.artifactSha256,
        artifactBytes: Number(version.artifact.bytes),
        artifactFormat: artifactFormatOf(version.artifact.format),
      },
    },
    input.createdById,
  );
  const params = planTrialJobColumn.read((await tx.job.findUniqueOrThrow({ where: { id: trial.jobId } })).params);
  await tx.proposal.update({
    where: { id: input.proposalId },
    data: {
      state: "trialing",
      trialJobId: trial.jobId,
      trial: writeJsonColumn(proposalTrialColumn, initialTrialView(trial.jobId, params)),
    },
  });
  return trial;
}

/** The trial as the proposal first shows it (queued, predictions only). */
export function initialTrialView(
  jobId: string,
  params: Pick<StoredTrialParams, "candidates" | "estimateMs" | "model">,
): ProposalTrial {
  return {
    state: "queued",
    jobId,
    estimateMs: params.estimateMs,
    verdict: null,
    replaced: null,
    costS: null,
    error: null,
    stoppedEarly: false,
    model: params.model,
    candidates: params.candidates.map((c) => ({
      key: c.key,
      groups: c.groups.map((g) => ({ count: g.count, threads: g.threads, batch: g.batch })),
      roles: [...c.roles],
      rank: c.rank,
      predictedMs: c.predictedMs,
      correctedMs: c.correctedMs,
      measured: null,
      error: null,
    })),
  };
}

export function claimedPlanTrial(job: { id: string; params: unknown }) {
  return { id: job.id, kind: PLAN_TRIAL_JOB_KIND, params: planTrialParamsSchema.parse(job.params) };
}

async function ownedRunningTrial(agentId: string, jobId: string, tx: Prisma.TransactionClient) {
  await tx.$queryRaw`SELECT id FROM job WHERE id = ${jobId} FOR UPDATE`;
  const job = await tx.job.findUnique({ where: { id: jobId } });
  if (!job || job.agentId !== agentId || job.kind !== PLAN_TRIAL_JOB_KIND) throw notFound("job", jobId);
  if (job.state === "cancelled") throw conflict("the trial was cancelled");
  if (job.state !== "running") throw conflict(`the trial is ${job.state}`);
  return { job, params: planTrialJobColumn.read(job.params) };
}

async function setProposalTrial(
  tx: PrismaClient | Prisma.TransactionClient,
  proposalId: string,
  update: (trial: ProposalTrial) => ProposalTrial,
  done: boolean,
) {
  const proposal = await tx.proposal.findUnique({ where: { id: proposalId } });
  if (!proposal) return;
  const stored = proposalTrialColumn.read(proposal.trial);
  if (!stored) return;
  const trial = update(stored);
  await tx.proposal.update({
    where: { id: proposalId },
    data: {
      trial: writeJsonColumn(proposalTrialColumn, trial),
      ...(done && proposal.state === "trialing" ? { state: "pending" } : {}),
    },
  });
}

/** A round finished: progress, and the trial shows as running. 409 once cancelled: the agent stops. */
export async function recordTrialProgress(
  agentId: string,
  jobId: string,
  progress: { round: number; rounds: number },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const { job, params } = await ownedRunningTrial(agentId, jobId, tx);
    await tx.job.update({
      where: { id: job.id },
      data: {
        progress: Math.min(1, progress.round / progress.rounds),
        progressMessage: `round ${progress.round} of ${progress.rounds}`,
      },
    });
    await setProposalTrial(tx, params.proposalId, (t) => ({ ...t, state: "running" }), false);
    return { ok: true as const };
  });
}

/** The measurements: per candidate the round means' 95% interval, the verdict, and the proposal's plan if it changes. */
export function summarizeTrial(
  params: StoredTrialParams,
  result: PlanTrialResult,
): { candidates: TrialCandidateView[]; verdict: TrialVerdict | null } {
  const candidates: TrialCandidateView[] = params.candidates.map((c) => {
    const o = result.plans.find((p) => p.key === c.key);
    const rounds = (o?.turns ?? []).map((t) => t.dispatchMeanMs);
    let measured: TrialCandidateView["measured"] = null;
    if (o && !o.error && rounds.length) {
      const m = mean(rounds);
      const ci = rounds.length >= 2 ? meanConfidenceInterval(rounds) : null;
      const instanceMs = mean(o.turns.map((t) => t.instanceMeanMs));
      measured = {
        meanMs: m,
        lowerMs: ci?.lower ?? m,
        upperMs: ci?.upper ?? m,
        rounds: rounds.length,
        instanceMs,
        overheadMs: Math.max(0, m - instanceMs),
      };
    }
    return {
      key: c.key,
      groups: c.groups.map((g) => ({ count: g.count, threads: g.threads, batch: g.batch })),
      roles: [...c.roles],
      rank: c.rank,
      predictedMs: c.predictedMs,
      correctedMs: c.correctedMs,
      measured,
      error: o?.error ?? (measured ? null : "not measured"),
    };
  });
  const measuredOnes = params.candidates.filter((c) => candidates.find((v) => v.key === c.key)?.measured);
  const verdict = measuredOnes.length
    ? trialVerdict(
        measuredOnes.map((c) => ({
          key: c.key,
          rank: c.rank,
          predictedMs: c.predictedMs,
          roundMeansMs: result.plans.find((p) => p.key === c.key)!.turns.map((t) => t.dispatchMeanMs),
        })),
      )
    : null;
  return { candidates, verdict };
}

/** POST /jobs/{id}/trial: stores the result, ends the job, and (when contradicted) makes the measured best the proposal. */
export async function recordTrialResult(
  agentId: string,
  jobId: string,
  result: PlanTrialResult,
  prisma: PrismaClient = db(),
) {
  const outcome = await prisma.$transaction(async (tx) => {
    const { job, params } = await ownedRunningTrial(agentId, jobId, tx);
    const unknown = result.plans.find((p) => !params.plans.some((q) => q.key === p.key));
    if (unknown) throw invalidInput(`plan ${unknown.key} is not one of the trial's plans`);
    const { candidates, verdict } = summarizeTrial(params, result);
    const failed = verdict === null;
    const error = failed
      ? `no plan could be measured: ${candidates.map((c) => `${c.key}: ${c.error}`).join("; ")}`.slice(0, 2000)
      : null;
    await tx.job.update({
      where: { id: job.id },
      data: {
        state: failed ? "failed" : "done",
        result: writeJsonColumn(planTrialResultColumn, result),
        error,
        progress: 1,
        progressMessage: failed ? "failed" : "measured",
        finishedAt: new Date(),
      },
    });
    const proposal = await tx.proposal.findUnique({ where: { id: params.proposalId } });
    if (!proposal) return null;
    let replaced: ProposalTrial["replaced"] = null;
    const data: Prisma.ProposalUpdateInput = {};
    if (verdict?.contradicted && proposal.state === "trialing") {
      const best = params.candidates.find((c) => c.key === verdict.proposedKey)!;
      const deployment = await tx.deployment.findUniqueOrThrow({
        where: { id: params.deploymentId },
        include: { agent: true },
      });
      const current = servingPlanSchema.parse(proposal.plan);
      const items = best.groups.map((g) => ({ count: g.count, threads: g.threads, batch: g.batch }));
      const allocated = allocatePlan(agentTopology(deployment.agent), deployment.cpus, {
        items,
        batchSize: params.batch,
        batchTimeoutMs: current.batchTimeoutMs,
        dimensions: current.dimensions,
      });
      const plan = current.batchAxes ? { ...allocated, batchAxes: current.batchAxes } : allocated;
      replaced = {
        key: verdict.predictedKey,
        items: proposalItemsColumn
          .read(proposal.items)
          .map((g) => ({ count: g.count, threads: g.threads, batch: g.batch })),
      };
      Object.assign(data, {
        items: writeJsonColumn(
          proposalItemsColumn,
          best.groupLatencies.map((g) => ({
            count: g.count,
            threads: g.threads,
            batch: g.batch,
            latencyMs: g.latencyMs ?? null,
          })),
        ),
        plan: writeJsonColumn(proposalPlanColumn, plan),
        predictedLatencyMs: best.predictedMs,
        predictedThroughputPerS: best.predictedMs ? (params.batch * 1000) / best.predictedMs : null,
        reason: `${proposal.reason} — changed by the plan trial: ${verdict.why}`.slice(0, 2000),
      });
      await recordAudit(tx, {
        actor: { type: "system", label: "plan trial" },
        action: "proposal.trial_replaced",
        target: { type: "proposal", id: proposal.id },
        before: { plan: verdict.predictedKey },
        after: { plan: verdict.proposedKey, why: verdict.why },
      });
    }
    const costS = result.durationMs / 1000;
    const before = proposalTrialColumn.read(proposal.trial);
    if (!before) throw new Error(`proposal ${proposal.id} has no trial to record the result in`);
    const trial: ProposalTrial = {
      ...before,
      state: failed ? "failed" : "done",
      candidates,
      verdict,
      replaced,
      costS,
      error,
      stoppedEarly: result.stoppedEarly,
    };
    await tx.proposal.update({
      where: { id: proposal.id },
      data: {
        ...data,
        trial: writeJsonColumn(proposalTrialColumn, trial),
        ...(proposal.state === "trialing" ? { state: "pending" } : {}),
      },
    });
    return proposal.id;
  });
  if (outcome) await offerSettled(outcome, prisma);
  return { ok: true as const };
}

/** A trial settled (measured, failed, cancelled): an estimator proposal now meets its deployment's approval policy. */
async function offerSettled(proposalId: string, prisma: PrismaClient): Promise<void> {
  try {
    await applyApprovalPolicy(proposalId, prisma);
  } catch (error) {
    log.warn("auto-approval after a plan trial failed", { proposalId, error: (error as Error).message });
  }
}

/** POST /jobs/{id}/finish for a trial: 'failed' with the agent's reason (a 'done' without a result is a failure too). */
export async function finishTrialJob(
  agentId: string,
  jobId: string,
  outcome: "done" | "failed",
  error: string | undefined,
  prisma: PrismaClient = db(),
) {
  const proposalId = await prisma.$transaction(async (tx) => {
    const { job, params } = await ownedRunningTrial(agentId, jobId, tx);
    const reason = outcome === "failed" ? (error ?? "failed") : "the agent finished the trial without a result";
    await tx.job.update({ where: { id: job.id }, data: { state: "failed", error: reason, finishedAt: new Date() } });
    await setProposalTrial(tx, params.proposalId, (t) => ({ ...t, state: "failed", error: reason }), true);
    return params.proposalId;
  });
  await offerSettled(proposalId, prisma);
  return { ok: true as const };
}

/** Cancels a proposal's trial: the proposal is offered on its predictions alone, and says the trial was cancelled. */
export async function cancelPlanTrial(
  caller: ServiceCaller,
  input: { proposalId: string },
  prisma: PrismaClient = db(),
) {
  const outcome = await prisma.$transaction(async (tx) => {
    const proposal = await tx.proposal.findUnique({ where: { id: input.proposalId } });
    if (!proposal?.trialJobId) throw notFound("trial of proposal", input.proposalId);
    await tx.$queryRaw`SELECT id FROM job WHERE id = ${proposal.trialJobId} FOR UPDATE`;
    const job = await tx.job.findUniqueOrThrow({ where: { id: proposal.trialJobId } });
    const mayCancel =
      proposal.proposedById === caller.user.id || caller.user.role === "sre" || caller.user.role === "admin";
    if (!mayCancel) throw new DomainError("FORBIDDEN", "only the proposer, an sre or an admin can cancel its trial");
    if (job.state !== "queued" && job.state !== "running") throw conflict(`the trial is already ${job.state}`);
    await tx.job.update({ where: { id: job.id }, data: { state: "cancelled", finishedAt: new Date() } });
    await setProposalTrial(
      tx,
      proposal.id,
      (t) => ({ ...t, state: "cancelled", error: `cancelled by ${caller.user.name}` }),
      true,
    );
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "proposal.trial_cancel",
      target: { type: "proposal", id: proposal.id },
      before: { state: job.state },
      requestId: caller.requestId,
    });
    return { cancelled: true };
  });
  await offerSettled(input.proposalId, prisma);
  return outcome;
}

/** Trials the estimator's proposals started on a deployment in the last hour (bounded by its policy's rate). */
export function estimatorTrialsLastHour(
  deploymentId: string,
  prisma: PrismaClient | Prisma.TransactionClient = db(),
): Promise<number> {
  return prisma.job.count({
    where: {
      kind: PLAN_TRIAL_JOB_KIND,
      createdById: null,
      createdAt: { gte: new Date(Date.now() - 3_600_000) },
      params: { path: ["deploymentId"], equals: deploymentId },
    },
  });
}

/** A trial no agent claimed in this long (offline, or busy with a long profile) ends as failed. */
export const TRIAL_CLAIM_TIMEOUT_MS = 15 * 60_000;

/** Queued trials past the claim timeout fail: their proposals are offered on their predictions, saying why. */
export async function expireUnclaimedTrials(
  prisma: PrismaClient | Prisma.TransactionClient = db(),
  now = Date.now(),
): Promise<number> {
  const stale = await prisma.job.findMany({
    where: { kind: PLAN_TRIAL_JOB_KIND, state: "queued", createdAt: { lt: new Date(now - TRIAL_CLAIM_TIMEOUT_MS) } },
  });
  for (const job of stale) {
    const reason = `the agent did not start the trial within ${TRIAL_CLAIM_TIMEOUT_MS / 60_000} minutes (offline or busy)`;
    const { count } = await prisma.job.updateMany({
      where: { id: job.id, state: "queued" },
      data: { state: "failed", error: reason, finishedAt: new Date(now) },
    });
    if (count === 0) continue; // claimed meanwhile
    const params = planTrialJobColumn.read(job.params);
    await setProposalTrial(prisma, params.proposalId, (t) => ({ ...t, state: "failed", error: reason }), true);
  }
  return stale.length;
}

/** The proposal a trial was for ended (expired, withdrawn): a trial still queued or running is cancelled (the agent
 * gets 409 on its next report and stops). */
export async function trialEndedWithProposal(
  prisma: PrismaClient | Prisma.TransactionClient,
  jobId: string,
): Promise<void> {
  await prisma.job.updateMany({
    where: { id: jobId, state: { in: ["queued", "running"] } },
    data: { state: "cancelled", error: "its proposal ended first", finishedAt: new Date() },
  });
}

/** A trial lost with its agent twice: the proposal is offered on its predictions, saying so. */
export async function trialLost(
  tx: Prisma.TransactionClient,
  job: { id: string; params: Prisma.JsonValue },
  reason: string,
): Promise<void> {
  const params = planTrialJobColumn.read(job.params);
  await setProposalTrial(tx, params.proposalId, (t) => ({ ...t, state: "failed", error: reason }), true);
}

export function assertTrialBatch(batch: number): void {
  if (!Number.isInteger(batch) || batch < 1 || batch > 4096)
    throw invalidInput("a plan trial needs 1 ≤ B ≤ 4096", { field: "batchSize" });
}
