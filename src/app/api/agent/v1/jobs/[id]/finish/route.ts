// POST /api/agent/v1/jobs/{id}/finish — the agent is done with a job (or gives up, with the reason).
import { finishJobSchema } from "@/contracts/agent-jobs";
import { agentError, agentRoute } from "@/server/agent-auth/agent-route";
import { db } from "@/server/db/client";
import { finishLoadTestJob, LOAD_TEST_JOB_KIND } from "@/server/services/load-tests-service";
import { finishProbeJob, PROFILE_PROBE_JOB_KIND } from "@/server/services/profile-probe-service";
import { finishProfileJob } from "@/server/services/profiling-service";
import { finishTrialJob, PLAN_TRIAL_JOB_KIND } from "@/server/services/plan-trial-service";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return agentRoute(finishJobSchema, async ({ agent, body, requestId }) => {
    if (!agent.agentId) return agentError(409, "CONFLICT", "register first", requestId);
    const job = await db().job.findUnique({ where: { id }, select: { kind: true } });
    const finish = job?.kind === LOAD_TEST_JOB_KIND ? finishLoadTestJob : job?.kind === PROFILE_PROBE_JOB_KIND ? finishProbeJob
      : job?.kind === PLAN_TRIAL_JOB_KIND ? finishTrialJob : finishProfileJob;
    return Response.json(await finish(agent.agentId, id, body.outcome, body.error), { headers: { "cache-control": "no-store" } });
  })(request);
}
