// GET /api/agent/v1/artifacts/{sha256}: a model file for an agent, streamed from the artifact store with its length
// and hash in the headers, so the agent verifies what it received before it loads it. Only files of versions
// deployed to the calling agent or named by a live job for it; anything else is 403, whether or not the hash exists,
// so a token cannot probe the registry (artifactForAgent).
import { Readable } from "node:stream";
import { artifactPathParamsSchema } from "@/contracts/agent-protocol";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { artifactForAgent, type AgentArtifact } from "@/server/services/agent-artifacts-service";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

function fileResponse(artifact: AgentArtifact): Response {
  return new Response(Readable.toWeb(artifact.stream) as ReadableStream<Uint8Array>, {
    headers: {
      "content-type": "application/octet-stream",
      "content-length": String(artifact.bytes),
      "x-artifact-sha256": artifact.sha256,
      // Content-addressed: the bytes behind a hash never change.
      "cache-control": "private, max-age=31536000, immutable",
    },
  });
}

export const GET = agentRoute(
  { access: "token", params: artifactPathParamsSchema },
  async ({ agent, params, requestId }) => fileResponse(await artifactForAgent(agent, params.sha256, requestId)),
);
