// POST /api/agent/v1/jobs/{id}/trial — a plan trial's measurements (every plan's rounds, or why it did not start);
// the job is then done and its proposal is offered. 409 once the trial was cancelled or is no longer running.
import { planTrialResultSchema } from "@/contracts/agent-jobs";
import { agentError, agentRoute } from "@/server/agent-auth/agent-route";
import { recordTrialResult } from "@/server/services/plan-trial-service";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return agentRoute(planTrialResultSchema, async ({ agent, body, requestId }) => {
    if (!agent.agentId) return agentError(409, "CONFLICT", "register first", requestId);
    return Response.json(await recordTrialResult(agent.agentId, id, body), { headers: { "cache-control": "no-store" } });
  })(request);
}
