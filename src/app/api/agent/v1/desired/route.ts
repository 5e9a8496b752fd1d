// GET /api/agent/v1/desired?after=<revision> — long-poll: answers at once when the agent's desired state is newer
// than `after`, else holds up to LONG_POLL_HOLD_MS (woken by PostgreSQL NOTIFY) and answers 204;
// 401 at once when the token is revoked meanwhile.
import { agentError, agentLongPoll } from "@/server/agent-auth/agent-route";
import { env } from "@/server/env";
import { waitForDesiredState } from "@/server/services/desired-state-service";

export const dynamic = "force-dynamic";

export const GET = agentLongPoll(async ({ agent, request, requestId, signal }) => {
  if (!agent.agentId) return agentError(409, "CONFLICT", "this token has not registered an agent yet: POST /register first", requestId);
  const raw = new URL(request.url).searchParams.get("after") ?? "0";
  const after = Number(raw);
  if (!Number.isInteger(after) || after < 0) return agentError(400, "BAD_REQUEST", `after must be a non-negative integer, got "${raw}"`, requestId);
  const desired = await waitForDesiredState(agent.agentId, after, env().LONG_POLL_HOLD_MS, signal);
  if (!desired) return new Response(null, { status: 204, headers: { "cache-control": "no-store" } });
  return Response.json(desired, { headers: { "cache-control": "no-store" } });
});
