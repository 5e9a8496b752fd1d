// POST /api/agent/v1/jobs/{id}/cells — measured profile cells (or a duration probe's one cell); 409 once the job was
// cancelled (the agent stops).
import { postCellsSchema } from "@/contracts/agent-jobs";
import { agentError, agentRoute } from "@/server/agent-auth/agent-route";
import { db } from "@/server/db/client";
import { PROFILE_PROBE_JOB_KIND, recordProbeCells } from "@/server/services/profile-probe-service";
import { recordProfileCells } from "@/server/services/profiling-service";

export const dynamic = "force-dynamic";

export async function POST(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  const { id } = await context.params;
  return agentRoute(postCellsSchema, async ({ agent, body, requestId }) => {
    if (!agent.agentId) return agentError(409, "CONFLICT", "register first", requestId);
    const job = await db().job.findUnique({ where: { id }, select: { kind: true } });
    if (job?.kind === PROFILE_PROBE_JOB_KIND) {
      if (body.cells.length === 0) return agentError(400, "BAD_REQUEST", "a duration probe reports its cell, not progress", requestId);
      return Response.json(await recordProbeCells(agent.agentId, id, body.cells), { headers: { "cache-control": "no-store" } });
    }
    return Response.json(await recordProfileCells(agent.agentId, id, body.cells, body.progress), { headers: { "cache-control": "no-store" } });
  })(request);
}
