// An agent's desired state: every live deployment on it with its current generation's configuration. Agents
// long-poll it; any replica can answer because changes NOTIFY on PostgreSQL.
import { artifactFormatOf } from "@/core/model-bundle/bundle";
import type { PrismaClient } from "@/generated/prisma/client";
import { desiredStateSchema, type DesiredState } from "@/contracts/agent-protocol";
import { servingPlanSchema } from "@/contracts/serving-plan";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { notFound } from "@/server/errors/domain-errors";
import type { WaitSignal } from "@/core/cancellation/cancellation";
import { notifyHub } from "@/server/realtime/notify-hub";

export async function desiredStateFor(agentId: string, prisma: PrismaClient = db()): Promise<DesiredState> {
  const agent = await prisma.agent.findUniqueOrThrow({
    where: { id: agentId },
    select: {
      revision: true,
      deployments: {
        where: { removedAt: null },
        orderBy: { createdAt: "asc" },
        select: { id: true, generation: true },
      },
    },
  });
  const generations = await prisma.deploymentGeneration.findMany({
    where: { OR: agent.deployments.map((d) => ({ deploymentId: d.id, generation: d.generation })) },
  });
  const versionIds = [...new Set(generations.map((g) => g.modelVersionId))];
  const versions = await prisma.modelVersion.findMany({
    where: { id: { in: versionIds } },
    include: { model: true, artifact: true },
  });
  const deployments = generations.map((g) => {
    const version = versions.find((v) => v.id === g.modelVersionId)!;
    const model = version.model;
    return {
      deploymentId: g.deploymentId,
      modelName: model.name,
      version: String(version.number),
      artifactSha256: version.artifactSha256,
      artifactBytes: Number(version.artifact.bytes),
      artifactFormat: artifactFormatOf(version.artifact.format),
      generation: g.generation,
      plan: servingPlanSchema.parse(g.plan),
      ...(model.sloDeadlineMs && model.sloQuantile
        ? { slo: { deadlineMs: model.sloDeadlineMs, quantile: model.sloQuantile } }
        : {}),
    };
  });
  return desiredStateSchema.parse({ revision: agent.revision, deployments });
}

/**
 * Each agent's desired-state revision as this process last read it, valid within one generation of the LISTEN
 * connection: every revision change NOTIFYs packrat_desired with the agent's id (deployments-service), which drops
 * the agent's entry here, so a poll that finds nothing newer costs no query. A read that a NOTIFY overtook is not
 * kept; a reconnected listener starts the view afresh.
 */
const revisions = new Map<string, { revision: number; generation: number }>();
/** Bumped by every packrat_desired NOTIFY: a read while one arrived is not kept. */
let changes = 0;
let viewFed = false;
function feedView(): void {
  if (viewFed) return;
  viewFed = true;
  notifyHub().onChannel("packrat_desired", (agentId) => {
    changes++;
    revisions.delete(agentId);
  });
}

async function currentRevision(agentId: string, generation: number): Promise<number> {
  const known = revisions.get(agentId);
  if (known && known.generation === generation) return known.revision;
  const seen = changes;
  const { rows } = await pgPool().query<{ revision: number }>({
    name: "packrat_agent_revision",
    text: "SELECT revision FROM agent WHERE id = $1",
    values: [agentId],
  });
  if (!rows[0]) throw notFound("agent", agentId);
  if (changes === seen && notifyHub().currentGeneration() === generation)
    revisions.set(agentId, { revision: rows[0].revision, generation });
  return rows[0].revision;
}

/** Long-poll: a desired state newer than `after`, or undefined when `holdMs` passes (or the agent hangs up). */
export async function waitForDesiredState(
  agentId: string,
  after: number,
  holdMs: number,
  signal?: WaitSignal,
): Promise<DesiredState | undefined> {
  feedView();
  const deadline = Date.now() + holdMs;
  for (;;) {
    const subscription = await notifyHub().subscribe("packrat_desired", agentId);
    try {
      const generation = await notifyHub().listeningGeneration();
      if ((await currentRevision(agentId, generation)) > after) return await desiredStateFor(agentId);
      const left = deadline - Date.now();
      if (left <= 0 || signal?.aborted) return undefined;
      const notified = await subscription.wait(left, signal);
      if (!notified) return undefined;
    } finally {
      subscription.cancel();
    }
  }
}
