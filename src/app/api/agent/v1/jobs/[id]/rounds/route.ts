// POST /api/agent/v1/jobs/{id}/rounds — a plan trial's progress (rounds done of all); 409 once the trial was
// cancelled (the agent stops it).
import { jobPathParamsSchema, trialProgressSchema } from "@/contracts/agent-jobs";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordTrialProgress } from "@/server/services/plan-trial-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute(
  { access: "registered", params: jobPathParamsSchema, body: trialProgressSchema },
  ({ agentId, params, body }) => recordTrialProgress(agentId, params.id, body),
);
