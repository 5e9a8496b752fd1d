// GET /api/agent/v1/desired?after=<revision> — long-poll: answers at once when the agent's desired state is newer
// than `after`, else holds up to LONG_POLL_HOLD_MS (woken by PostgreSQL NOTIFY) and answers 204;
// 401 at once when the token is revoked meanwhile.
import { desiredQuerySchema } from "@/contracts/agent-protocol";
import { agentLongPoll } from "@/server/agent-auth/agent-route";
import { env } from "@/server/env";
import { waitForDesiredState } from "@/server/services/desired-state-service";

export const dynamic = "force-dynamic";

export const GET = agentLongPoll({ query: desiredQuerySchema }, ({ agentId, query, signal }) =>
  waitForDesiredState(agentId, query.after, env().LONG_POLL_HOLD_MS, signal),
);
