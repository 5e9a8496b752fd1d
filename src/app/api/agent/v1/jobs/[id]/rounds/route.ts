// POST /api/agent/v1/jobs/{id}/rounds — a plan trial's progress (rounds done of all); 409 once the trial was
// cancelled (the agent stops it).
import { trialProgressSchema } from "@/contracts/agent-jobs";
import { agentError, agentRoute } from "@/server/agent-auth/agent-route";
import { recordTrialProgress } from "@/server/services/plan-trial-service";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return agentRoute(trialProgressSchema, async ({ agent, body, requestId }) => {
    if (!agent.agentId) return agentError(409, "CONFLICT", "register first", requestId);
    return Response.json(await recordTrialProgress(agent.agentId, id, body), { headers: { "cache-control": "no-store" } });
  })(request);
}
