// POST /api/agent/v1/metrics — every METRICS_INTERVAL_MS: per deployment, the interval's counters and merged
// histograms; the host's load.
import { metricsRequestSchema } from "@/contracts/agent-protocol";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordAgentMetrics } from "@/server/services/agent-heartbeat-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute({ access: "registered", body: metricsRequestSchema }, ({ agent, body }) =>
  recordAgentMetrics(agent, body),
);
