// GET /api/agent/v1/jobs/next[?kinds=profile,load_test] — long-poll: the agent's next job (claimed for it), or
// {"job": null} after the hold; 401 at once when the token is revoked meanwhile. `kinds` lists the job kinds the agent
// runs; without it, profiling only (older agents).
import { agentError, agentLongPoll } from "@/server/agent-auth/agent-route";
import { env } from "@/server/env";
import { AGENT_JOB_KINDS, claimNextJob, sweepLostAgents, type AgentJobKind } from "@/server/services/profiling-service";

export const dynamic = "force-dynamic";

export const GET = agentLongPoll(async ({ agent, request, requestId, signal }) => {
  if (!agent.agentId) return agentError(409, "CONFLICT", "this token has not registered an agent yet: POST /register first", requestId);
  await sweepLostAgents();
  const asked = new URL(request.url).searchParams.get("kinds")?.split(",") ?? ["profile"];
  const unknown = asked.filter((k) => !(AGENT_JOB_KINDS as readonly string[]).includes(k));
  if (unknown.length || asked.length === 0) return agentError(400, "BAD_REQUEST", `kinds: unknown job kind ${unknown.join(", ") || "(none)"}; known: ${AGENT_JOB_KINDS.join(", ")}`, requestId);
  const job = await claimNextJob(agent.agentId, env().LONG_POLL_HOLD_MS, signal, undefined, asked as AgentJobKind[]);
  return Response.json({ job }, { headers: { "cache-control": "no-store" } });
});
