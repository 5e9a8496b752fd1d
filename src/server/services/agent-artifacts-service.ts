// Which model files an agent may download: only what its work needs. A version's artifact is fetchable by an
// agent when the version is deployed to it (a live deployment on that agent) or named by a live job for it (a
// running job it claimed, or a queued job addressed to it). Anything else — another agent's models, versions
// no one deployed, finished jobs — is refused, so a leaked agent token reads no more than that host serves.
import type { Readable } from "node:stream";
import type { PrismaClient } from "@/generated/prisma/client";
import { artifactStore } from "@/server/artifacts/default-store";
import type { ArtifactStore } from "@/server/artifacts/artifact-store";
import { db } from "@/server/db/client";
import { DomainError, notFound } from "@/server/errors/domain-errors";
import { log } from "@/server/log";
import type { AgentIdentity } from "./agent-tokens-service";

/** True when `agentId` may fetch the artifact `sha256` (see above). An unknown hash is simply not allowed. */
export async function agentMayFetchArtifact(
  agentId: string,
  sha256: string,
  prisma: PrismaClient = db(),
): Promise<boolean> {
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

/** A model file an agent may have, ready to stream. */
export interface AgentArtifact {
  sha256: string;
  bytes: number;
  stream: Readable;
}

/**
 * GET /artifacts/{sha256}: the file, when this agent may have it (403 otherwise, whether or not the hash exists, so
 * a token cannot probe the registry; an unregistered token has nothing to fetch) and the registry knows it (a file
 * without its row, an upload in flight or GC pending, is not served: 404, as is a file the store lost).
 */
export async function artifactForAgent(
  agent: AgentIdentity,
  sha256: string,
  requestId: string,
  prisma: PrismaClient = db(),
  store: ArtifactStore = artifactStore(),
): Promise<AgentArtifact> {
  if (!agent.agentId || !(await agentMayFetchArtifact(agent.agentId, sha256, prisma))) {
    log.warn("artifact refused", { requestId, agentToken: agent.tokenId, agentId: agent.agentId, sha256 });
    throw new DomainError(
      "FORBIDDEN",
      `artifact ${sha256} is neither deployed to this agent nor named by a job for it`,
    );
  }
  const row = await prisma.artifact.findUnique({ where: { sha256 } });
  const bytes = row ? await store.size(sha256) : undefined;
  if (!row || bytes === undefined) throw notFound("artifact", sha256);
  log.info("artifact served", { requestId, agentToken: agent.tokenId, sha256, bytes });
  return { sha256, bytes, stream: store.read(sha256) };
}
