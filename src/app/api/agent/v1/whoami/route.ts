// The agent API's simplest route: which agent token is calling. Agents (and operators) use it to check a token.
import { agentRoute } from "@/server/agent-auth/agent-route";

export const dynamic = "force-dynamic";

export const GET = agentRoute({ access: "token" }, async ({ agent }) => ({
  tokenId: agent.tokenId,
  name: agent.name,
  createdAt: agent.createdAt.toISOString(),
}));
