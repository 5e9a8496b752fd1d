// GET /api/agent/v1/artifacts/{sha256}: a model file for an agent, streamed from the artifact store with its length
// and hash in the headers, so the agent verifies what it received before it loads it. Only files of versions
// deployed to the calling agent or named by a live job for it (agentMayFetchArtifact); anything else is 403,
// whether or not the hash exists, so a token cannot probe the registry.
import { Readable } from "node:stream";
import { agentError, mapErrorToResponse } from "@/server/agent-auth/agent-route";
import { verifyAgentBearer } from "@/server/agent-auth/verify-agent-bearer";
import { artifactStore } from "@/server/artifacts/default-store";
import { db } from "@/server/db/client";
import { log } from "@/server/log";
import { agentMayFetchArtifact } from "@/server/services/agent-artifacts-service";
import type { AgentIdentity } from "@/server/services/agent-tokens-service";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const SHA256 = /^[0-9a-f]{64}$/;

function notFound(sha256: string, requestId: string): Response {
  return Response.json({ error: { code: "NOT_FOUND", message: `no artifact ${sha256}` } }, { status: 404, headers: { "x-request-id": requestId, "cache-control": "no-store" } });
}

export async function GET(request: Request, context: { params: Promise<{ sha256: string }> }): Promise<Response> {
  const verified = await verifyAgentBearer(request);
  if (!verified.ok) return verified.response;
  try { return await serve(verified.agent, verified.requestId, context); } catch (error) { return mapErrorToResponse(error, verified.requestId); }
}

async function serve(agent: AgentIdentity, requestId: string, context: { params: Promise<{ sha256: string }> }): Promise<Response> {
  const { sha256 } = await context.params;
  if (!SHA256.test(sha256)) return notFound(sha256.slice(0, 80), requestId);
  if (!agent.agentId || !(await agentMayFetchArtifact(agent.agentId, sha256))) {
    log.warn("artifact refused", { requestId, agentToken: agent.tokenId, agentId: agent.agentId, sha256 });
    return agentError(403, "FORBIDDEN", `artifact ${sha256} is neither deployed to this agent nor named by a job for it`, requestId);
  }
  const store = artifactStore();
  // Only what the registry knows: a file without its row (an upload in flight, GC pending) is not served.
  const row = await db().artifact.findUnique({ where: { sha256 } });
  const size = row ? await store.size(sha256) : undefined;
  if (!row || size === undefined) return notFound(sha256, requestId);
  log.info("artifact served", { requestId, agentToken: agent.tokenId, sha256, bytes: size });
  const body = Readable.toWeb(store.read(sha256)) as ReadableStream<Uint8Array>;
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(size),
      "x-artifact-sha256": sha256,
      // Content-addressed: the bytes behind a hash never change.
      "cache-control": "private, max-age=31536000, immutable",
      "x-request-id": requestId,
    },
  });
}
