// GET /api/agent/v1/desired?after=<revision> — long-poll: answers at once when the agent's desired state is newer
// than `after`, else holds up to LONG_POLL_HOLD_MS (woken by PostgreSQL NOTIFY) and answers 204;
// 401 at once when the token is revoked meanwhile.
import { desiredQuerySchema } from "@/contracts/agent-protocol";
import { agentRoute, noContent } from "@/server/agent-auth/agent-route";
import { env } from "@/server/env";
import { waitForDesiredState } from "@/server/services/desired-state-service";

export const dynamic = "force-dynamic";

export const GET = agentRoute(
  { access: "registered", query: desiredQuerySchema, longPoll: true },
  async ({ agentId, query, signal }) =>
    (await waitForDesiredState(agentId, query.after, env().LONG_POLL_HOLD_MS, signal)) ?? noContent(),
);
