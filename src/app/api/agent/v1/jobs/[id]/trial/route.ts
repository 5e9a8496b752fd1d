// POST /api/agent/v1/jobs/{id}/trial — a plan trial's measurements (every plan's rounds, or why it did not start);
// the job is then done and its proposal is offered. 409 once the trial was cancelled or is no longer running.
import { jobPathParamsSchema, planTrialResultSchema } from "@/contracts/agent-jobs";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordTrialResult } from "@/server/services/plan-trial-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute(
  { access: "registered", params: jobPathParamsSchema, body: planTrialResultSchema },
  ({ agentId, params, body }) => recordTrialResult(agentId, params.id, body),
);
