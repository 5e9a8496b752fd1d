// POST /api/agent/v1/jobs/{id}/finish — the agent is done with a job (or gives up, with the reason).
import { jobPathParamsSchema, finishJobSchema } from "@/contracts/agent-jobs";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { finishAgentJob } from "@/server/services/agent-jobs-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute(
  { access: "registered", params: jobPathParamsSchema, body: finishJobSchema },
  ({ agentId, params, body }) => finishAgentJob(agentId, params.id, body),
);
