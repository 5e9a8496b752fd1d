// POST /api/agent/v1/register — with an agent token (binds on first use) or an enrollment token (creates an agent
// and returns its own token once).
import { registerRequestSchema } from "@/contracts/agent-protocol";
import { agentRoute, mapErrorToResponse, readJson } from "@/server/agent-auth/agent-route";
import { requestIdFrom } from "@/server/log";
import { registerWithAgentToken, registerWithEnrollmentToken } from "@/server/services/agent-registration-service";
import { ENROLLMENT_TOKEN_PREFIX } from "@/server/services/enrollment-tokens-service";

export const dynamic = "force-dynamic";

const withAgentToken = agentRoute(registerRequestSchema, async ({ agent, body, requestId }) =>
  Response.json(await registerWithAgentToken(agent, body, requestId), { headers: { "cache-control": "no-store" } }));

export async function POST(request: Request): Promise<Response> {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
  if (!bearer?.startsWith(ENROLLMENT_TOKEN_PREFIX)) return withAgentToken(request);
  const requestId = requestIdFrom(request.headers);
  const body = await readJson(request, registerRequestSchema);
  if (!body.ok) return body.response;
  try {
    return Response.json(await registerWithEnrollmentToken(bearer, body.value, requestId), { headers: { "cache-control": "no-store" } });
  } catch (error) {
    return mapErrorToResponse(error, requestId);
  }
}
