// GET /api/agent/v1/jobs/next[?kinds=profile,load_test] — long-poll: the agent's next job (claimed for it), or
// {"job": null} after the hold; 401 at once when the token is revoked meanwhile. `kinds` lists the job kinds the agent
// runs; without it, profiling only (older agents); an unknown kind is 400 unknown_job_kind with the kinds known.
import { nextJobQuerySchema } from "@/contracts/agent-jobs";
import { agentLongPoll } from "@/server/agent-auth/agent-route";
import { env } from "@/server/env";
import { nextJobForAgent } from "@/server/services/agent-jobs-service";

export const dynamic = "force-dynamic";

export const GET = agentLongPoll({ query: nextJobQuerySchema }, ({ agentId, query, signal }) =>
  nextJobForAgent(agentId, query.kinds, env().LONG_POLL_HOLD_MS, signal),
);
