// POST /api/agent/v1/metrics — every METRICS_INTERVAL_MS: per deployment, the interval's counters and merged
// histograms; the host's load.
import { metricsRequestSchema } from "@/contracts/agent-protocol";
import { agentRouteWithToken } from "@/server/agent-auth/agent-route";
import { recordAgentMetricsWithToken } from "@/server/services/agent-heartbeat-service";

export const dynamic = "force-dynamic";

export const POST = agentRouteWithToken({ body: metricsRequestSchema }, (token, body) =>
  recordAgentMetricsWithToken(token, body),
);
