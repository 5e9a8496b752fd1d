// POST /api/agent/v1/events — what happened to the agent's deployments (a generation served or failed, a
// reconfiguration report, an estimator proposal), sent when it happens.
import { eventsRequestSchema } from "@/contracts/agent-protocol";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordAgentEvents } from "@/server/services/agent-heartbeat-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute({ access: "registered", body: eventsRequestSchema }, ({ agent, body }) =>
  recordAgentEvents(agent, body),
);
