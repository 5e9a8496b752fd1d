// The one gate of the REST agent API (/api/agent/v1/*): an agent token in `Authorization: Bearer …`.
// A user's session cookie is never accepted here, whatever it holds; a revoked token fails at once.
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "@/server/errors/database-unavailable";
import { log, requestIdFrom } from "@/server/log";
import { authenticateAgentToken, type AgentIdentity } from "@/server/services/agent-tokens-service";

export type AgentAuthResult = { ok: true; agent: AgentIdentity; requestId: string } | { ok: false; response: Response };

export function unauthorizedResponse(message: string, requestId: string): Response {
  return Response.json(
    { error: { code: "UNAUTHORIZED", message } },
    {
      status: 401,
      headers: {
        "www-authenticate": 'Bearer realm="packrat-agent"',
        "x-request-id": requestId,
        "cache-control": "no-store",
      },
    },
  );
}

function unauthorized(message: string, requestId: string): { ok: false; response: Response } {
  return { ok: false, response: unauthorizedResponse(message, requestId) };
}

/** The token in `Authorization: Bearer …`, if there is one. */
export function bearerToken(headers: Headers): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "")?.[1];
}

export const missingBearerResponse = (requestId: string): Response =>
  unauthorizedResponse("an agent token is required (Authorization: Bearer <token>)", requestId);

export async function verifyAgentBearer(request: Request): Promise<AgentAuthResult> {
  const requestId = requestIdFrom(request.headers);
  const token = bearerToken(request.headers);
  if (!token) return { ok: false, response: missingBearerResponse(requestId) };
  let agent: AgentIdentity | null;
  try {
    agent = await authenticateAgentToken(token);
  } catch (error) {
    // Every agent route starts here: an outage is a 503 the agent retries, never a 500 carrying the driver's words.
    if (!isDatabaseUnavailable(error)) throw error;
    log.warn("agent API: database unavailable", { requestId, message: (error as Error).message });
    return {
      ok: false,
      response: Response.json(
        { error: { code: "UNAVAILABLE", message: DATABASE_UNAVAILABLE_MESSAGE } },
        { status: 503, headers: { "retry-after": "2", "x-request-id": requestId, "cache-control": "no-store" } },
      ),
    };
  }
  if (!agent) {
    log.info("agent token refused", { requestId, path: new URL(request.url).pathname });
    return unauthorized("the agent token is unknown or revoked", requestId);
  }
  return { ok: true, agent, requestId };
}
