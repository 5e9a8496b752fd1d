// POST /api/agent/v1/heartbeat — the agent's lease and the revision it applied (an older agent's also carries its reports).
import { heartbeatRequestSchema } from "@/contracts/agent-protocol";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordHeartbeat } from "@/server/services/agent-heartbeat-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute({ access: "registered", body: heartbeatRequestSchema }, ({ agent, body }) =>
  recordHeartbeat(agent, body),
);
