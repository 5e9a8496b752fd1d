// POST /api/agent/v1/jobs/{id}/cells — measured profile cells (or a duration probe's one cell); 409 once the job was
// cancelled (the agent stops).
import { jobPathParamsSchema, postCellsSchema } from "@/contracts/agent-jobs";
import { agentRoute } from "@/server/agent-auth/agent-route";
import { recordJobCells } from "@/server/services/agent-jobs-service";

export const dynamic = "force-dynamic";

export const POST = agentRoute(
  { access: "registered", params: jobPathParamsSchema, body: postCellsSchema },
  ({ agentId, params, body }) => recordJobCells(agentId, params.id, body),
);
