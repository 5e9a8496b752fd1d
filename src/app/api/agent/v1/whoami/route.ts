// The agent API's simplest route: which agent token is calling. Agents (and operators) use it to check a token.
import { verifyAgentBearer } from "@/server/agent-auth/verify-agent-bearer";

export const dynamic = "force-dynamic";

export async function GET(request: Request): Promise<Response> {
  const verified = await verifyAgentBearer(request);
  if (!verified.ok) return verified.response;
  const { agent, requestId } = verified;
  return Response.json(
    { tokenId: agent.tokenId, name: agent.name, createdAt: agent.createdAt.toISOString() },
    { headers: { "x-request-id": requestId, "cache-control": "no-store" } },
  );
}
