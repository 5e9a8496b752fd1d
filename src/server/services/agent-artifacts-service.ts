// Which model files an agent may download: only what its work needs. A version's artifact is fetchable by an
// agent when the version is deployed to it (a live deployment on that agent) or named by a live job for it (a
// running job it claimed, or a queued job addressed to it). Anything else — another agent's models, versions
// no one deployed, finished jobs — is refused, so a leaked agent token reads no more than that host serves.
import type { PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";

/** True when `agentId` may fetch the artifact `sha256` (see above). An unknown hash is simply not allowed. */
export async function agentMayFetchArtifact(agentId: string, sha256: string, prisma: PrismaClient = db()): Promise<boolean> {
  const deployed = await prisma.deployment.count({
    where: { agentId, removedAt: null, modelVersion: { artifactSha256: sha256 } },
  });
  if (deployed > 0) return true;
  // A profile job names its artifact in params. Claimed: Job.agentId; still queued: params.agentId.
  const jobs = await prisma.$queryRaw<Array<{ n: bigint }>>`
    SELECT count(*) AS n FROM job
    WHERE params->>'artifactSha256' = ${sha256}
      AND ((state = 'running' AND "agentId" = ${agentId}) OR (state = 'queued' AND params->>'agentId' = ${agentId}))`;
  return Number(jobs[0]?.n ?? 0) > 0;
}
