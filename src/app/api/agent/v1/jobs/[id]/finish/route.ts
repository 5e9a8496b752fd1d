// POST /api/agent/v1/jobs/{id}/finish — the agent is done with a job (or gives up, with the reason).
import { finishJobSchema } from "@/contracts/agent-jobs";
import { jobIdParamsSchema } from "@/contracts/agent-routes";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { finishAgentJob } from "@/server/services/agent-jobs-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute({ access: "registered", params: jobIdParamsSchema, body: finishJobSchema }, ({ agentId, params, body }) =>
  finishAgentJob(agentId, params.id, body));
