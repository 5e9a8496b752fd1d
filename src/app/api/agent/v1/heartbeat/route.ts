// POST /api/agent/v1/heartbeat — the agent's lease and the revision it applied (an older agent's also carries its
// reports). The token is verified in the lease renewal's own statement: one round trip per heartbeat.
import { heartbeatRequestSchema } from "@/contracts/agent-protocol";
import { agentRouteWithToken } from "@/server/agent-auth/agent-route";
import { recordHeartbeatWithToken } from "@/server/services/agent-heartbeat-service";

export const dynamic = "force-dynamic";

export const POST = agentRouteWithToken({ body: heartbeatRequestSchema }, (token, body) =>
  recordHeartbeatWithToken(token, body),
);
