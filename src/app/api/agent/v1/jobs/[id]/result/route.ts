// POST /api/agent/v1/jobs/{id}/result — a load test's report (the load generator's JSON) as the agent measured it;
// stored as it came and the job is done. 409 once the job was cancelled or is no longer running.
import { loadTestResultSchema } from "@/contracts/agent-jobs";
import { agentError, agentRoute } from "@/server/agent-auth/agent-route";
import { recordLoadTestResult } from "@/server/services/load-tests-service";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return agentRoute(loadTestResultSchema, async ({ agent, body, requestId }) => {
    if (!agent.agentId) return agentError(409, "CONFLICT", "register first", requestId);
    return Response.json(await recordLoadTestResult(agent.agentId, id, body), { headers: { "cache-control": "no-store" } });
  })(request);
}
