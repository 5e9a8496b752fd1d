// POST /api/agent/v1/jobs/{id}/result — a load test's report (the load generator's JSON) as the agent measured it;
// stored as it came and the job is done. 409 once the job was cancelled or is no longer running.
import { jobPathParamsSchema, loadTestResultSchema } from "@/contracts/agent-jobs";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordLoadTestResult } from "@/server/services/load-tests-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute(
  { access: "registered", params: jobPathParamsSchema, body: loadTestResultSchema },
  ({ agentId, params, body }) => recordLoadTestResult(agentId, params.id, body),
);
