// Deployments: a model version on an agent with a core budget. Every change is a new generation of the agent's
// desired state (generations only increase), written, audited and NOTIFYed in one transaction.
import { randomUUID } from "node:crypto";
import { servingDimsColumn } from "@/contracts/model-columns";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import { generationPlanColumn } from "@/contracts/deployment-columns";
import { agentTopology } from "@/contracts/host-topology";
import type { ServingPlan } from "@/contracts/serving-plan";
import { recordAudit, userActor, type AuditActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, invalidInput, notFound } from "@/server/errors/domain-errors";
import { DEFAULT_PLAN_LABEL, defaultPlan } from "./deployment-plans";
import { planForVersion } from "./model-serving-axes";
import { notifyTokenRevoked } from "./agent-tokens-service";
import type { ServiceCaller } from "./users-service";

type Tx = Prisma.TransactionClient;

/**
 * Every transaction that touches an agent's deployments locks the agent row first, as the heartbeat does: one lock
 * order (agent, then deployment) means a heartbeat and an approval can never deadlock.
 */
export async function lockAgent(tx: Tx, agentId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM agent WHERE id = ${agentId} FOR UPDATE`;
}

/** Bumps the agent's revision and wakes its long-poll (delivered when the transaction commits). */
export async function bumpAgentRevision(tx: Tx, agentId: string): Promise<void> {
  await tx.agent.update({ where: { id: agentId }, data: { revision: { increment: 1 } } });
  await tx.$executeRaw`SELECT pg_notify('packrat_desired', ${agentId})`;
}

/** The next generation of a deployment: its configuration, why, and who. */
export async function writeGeneration(
  tx: Tx,
  deployment: { id: string; agentId: string },
  next: { modelVersionId: string; plan: ServingPlan; label: string; createdById: string | null },
): Promise<number> {
  // Every generation (a proposal approved, a rollback, a version change) is checked against the model's axes.
  const version = await tx.modelVersion.findUnique({ where: { id: next.modelVersionId }, select: { analysis: true } });
  const plan = planForVersion(version?.analysis, next.plan);
  await lockAgent(tx, deployment.agentId);
  const updated = await tx.deployment.update({
    where: { id: deployment.id },
    data: { generation: { increment: 1 }, modelVersionId: next.modelVersionId, state: "applying", failureReason: null },
  });
  await tx.deploymentGeneration.create({
    data: {
      id: randomUUID(),
      deploymentId: deployment.id,
      generation: updated.generation,
      modelVersionId: next.modelVersionId,
      plan: writeJsonColumn(generationPlanColumn, plan),
      label: next.label,
      createdById: next.createdById,
    },
  });
  await bumpAgentRevision(tx, deployment.agentId);
  return updated.generation;
}

function overlapping(a: readonly number[], b: readonly number[]): number[] {
  const set = new Set(b);
  return a.filter((c) => set.has(c));
}

export interface DeployInput {
  agentId: string;
  modelVersionId: string;
  cpus: number[];
}

/** Who makes a change: a user (from a procedure) or the system (e.g. npm start's demo deployment). */
export interface Acting {
  actor: AuditActor;
  userId: string | null;
  requestId?: string;
}

export const actingUser = (caller: ServiceCaller): Acting => ({
  actor: userActor(caller.user),
  userId: caller.user.id,
  requestId: caller.requestId,
});

export function deployModel(caller: ServiceCaller, input: DeployInput, prisma: PrismaClient = db()) {
  return deployModelAs(actingUser(caller), input, prisma);
}

export async function deployModelAs(by: Acting, input: DeployInput, prisma: PrismaClient = db()) {
  const cpus = [...new Set(input.cpus)].sort((a, b) => a - b);
  if (cpus.length === 0) throw invalidInput("choose at least one CPU for the core budget", { field: "cpus" });
  return prisma.$transaction(async (tx) => {
    // Lock the agent row: two deploys racing for the same cores are serialized.
    await lockAgent(tx, input.agentId);
    const agent = await tx.agent.findUnique({
      where: { id: input.agentId },
      include: { deployments: { where: { removedAt: null }, include: { modelVersion: true } } },
    });
    if (!agent || agent.decommissionedAt) throw notFound("agent", input.agentId);
    const version = await tx.modelVersion.findUnique({ where: { id: input.modelVersionId }, include: { model: true } });
    if (!version) throw notFound("model version", input.modelVersionId);
    const outside = cpus.filter((c) => !agent.allowedCpus.includes(c));
    if (outside.length)
      throw invalidInput(
        `CPUs ${outside.join(", ")} are not usable on ${agent.hostName} (usable: ${agent.allowedCpus.join(", ")})`,
        { field: "cpus" },
      );
    for (const other of agent.deployments) {
      const shared = overlapping(cpus, other.cpus);
      if (shared.length)
        throw conflict(
          `CPUs ${shared.join(", ")} already belong to another deployment on ${agent.hostName}; core budgets never overlap`,
        );
      if (other.modelVersion.modelId === version.modelId)
        throw conflict(`${version.model.name} is already deployed on ${agent.hostName}; change its version instead`);
    }
    const plan = planForVersion(
      version.analysis,
      defaultPlan(agentTopology(agent), cpus, servingDimsColumn.read(version.servingDims)),
      "modelVersionId",
    );
    const deployment = await tx.deployment.create({
      data: {
        id: randomUUID(),
        agentId: agent.id,
        modelVersionId: version.id,
        cpus,
        generation: 1,
        state: "applying",
        createdById: by.userId,
      },
    });
    await tx.deploymentGeneration.create({
      data: {
        id: randomUUID(),
        deploymentId: deployment.id,
        generation: 1,
        modelVersionId: version.id,
        plan: writeJsonColumn(generationPlanColumn, plan),
        label: DEFAULT_PLAN_LABEL,
        createdById: by.userId,
      },
    });
    await bumpAgentRevision(tx, agent.id);
    await recordAudit(tx, {
      actor: by.actor,
      action: "deployment.create",
      target: {
        type: "deployment",
        id: deployment.id,
        label: `${version.model.name} v${version.number} on ${agent.hostName}`,
      },
      after: { agentId: agent.id, modelVersionId: version.id, cpus, plan },
      requestId: by.requestId,
    });
    return { id: deployment.id, generation: 1 };
  });
}

export async function undeployModel(
  caller: ServiceCaller,
  input: { deploymentId: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const deployment = await tx.deployment.findUnique({
      where: { id: input.deploymentId },
      include: { agent: true, modelVersion: { include: { model: true } } },
    });
    if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
    await lockAgent(tx, deployment.agentId);
    await tx.deployment.update({ where: { id: deployment.id }, data: { removedAt: new Date(), state: "removed" } });
    await bumpAgentRevision(tx, deployment.agentId);
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "deployment.remove",
      target: {
        type: "deployment",
        id: deployment.id,
        label: `${deployment.modelVersion.model.name} on ${deployment.agent.hostName}`,
      },
      before: { generation: deployment.generation, cpus: deployment.cpus },
      requestId: caller.requestId,
    });
    return { removed: true };
  });
}

/** A new generation naming another version of the same model, same budget; the plan resets to the default. */
export async function changeDeploymentVersion(
  caller: ServiceCaller,
  input: { deploymentId: string; modelVersionId: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const deployment = await tx.deployment.findUnique({
      where: { id: input.deploymentId },
      include: { agent: true, modelVersion: { include: { model: true } } },
    });
    if (!deployment || deployment.removedAt) throw notFound("deployment", input.deploymentId);
    const version = await tx.modelVersion.findUnique({ where: { id: input.modelVersionId } });
    if (!version) throw notFound("model version", input.modelVersionId);
    if (version.modelId !== deployment.modelVersion.modelId)
      throw invalidInput("the new version must be a version of the same model", { field: "modelVersionId" });
    if (version.id === deployment.modelVersionId) throw conflict(`version ${version.number} is already deployed here`);
    const plan = planForVersion(
      version.analysis,
      defaultPlan(agentTopology(deployment.agent), deployment.cpus, servingDimsColumn.read(version.servingDims)),
      "modelVersionId",
    );
    const generation = await writeGeneration(tx, deployment, {
      modelVersionId: version.id,
      plan,
      label: `version ${version.number}, ${DEFAULT_PLAN_LABEL}`,
      createdById: caller.user.id,
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "deployment.change_version",
      target: {
        type: "deployment",
        id: deployment.id,
        label: `${deployment.modelVersion.model.name} on ${deployment.agent.hostName}`,
      },
      before: { version: deployment.modelVersion.number, generation: deployment.generation },
      after: { version: version.number, generation },
      requestId: caller.requestId,
    });
    return { generation };
  });
}

/** Decommission: tokens revoked, deployments removed, hidden from lists. */
export async function decommissionAgent(
  caller: ServiceCaller,
  input: { agentId: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    await lockAgent(tx, input.agentId);
    const agent = await tx.agent.findUnique({ where: { id: input.agentId } });
    if (!agent || agent.decommissionedAt) throw notFound("agent", input.agentId);
    const now = new Date();
    const revoked = await tx.agentToken.updateManyAndReturn({
      where: { agentId: agent.id, revokedAt: null },
      data: { revokedAt: now, revokedById: caller.user.id },
      select: { id: true },
    });
    await notifyTokenRevoked(
      tx,
      revoked.map((t) => t.id),
    );
    const removed = await tx.deployment.updateMany({
      where: { agentId: agent.id, removedAt: null },
      data: { removedAt: now, state: "removed" },
    });
    await tx.agent.update({ where: { id: agent.id }, data: { decommissionedAt: now } });
    await bumpAgentRevision(tx, agent.id);
    await recordAudit(tx, {
      actor: userActor(caller.user) as AuditActor,
      action: "agent.decommission",
      target: { type: "agent", id: agent.id, label: agent.hostName },
      after: { deploymentsRemoved: removed.count },
      requestId: caller.requestId,
    });
    return { deploymentsRemoved: removed.count };
  });
}
