// POST /api/agent/v1/register — with an agent token (binds on first use) or an enrollment token (creates an agent
// and returns its own token once).
import { registerRequestSchema } from "@/contracts/agent-protocol";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { registerAgent } from "@/server/services/agent-registration-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute({ access: "enrollment", body: registerRequestSchema }, ({ caller, body, requestId }) =>
  registerAgent(caller, body, requestId),
);
