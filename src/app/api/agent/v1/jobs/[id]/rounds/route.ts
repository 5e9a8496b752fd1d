// POST /api/agent/v1/jobs/{id}/rounds — a plan trial's progress (rounds done of all); 409 once the trial was
// cancelled (the agent stops it).
import { trialProgressSchema } from "@/contracts/agent-jobs";
import { jobIdParamsSchema } from "@/contracts/agent-routes";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordTrialProgress } from "@/server/services/plan-trial-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute({ access: "registered", params: jobIdParamsSchema, body: trialProgressSchema }, ({ agentId, params, body }) =>
  recordTrialProgress(agentId, params.id, body));
