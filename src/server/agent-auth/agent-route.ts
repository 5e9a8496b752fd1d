// The shape of every agent API route: verify the agent token, validate the JSON body against its contract, call
// one service, map domain errors to statuses once. Errors: `{"error": {"code", "message"}}`.
import type { z } from "zod";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "@/server/errors/database-unavailable";
import { DomainError } from "@/server/errors/domain-errors";
import { httpStatusFor } from "@/server/errors/error-mapping";
import { env } from "@/server/env";
import { BodyTooLargeError, bodyTooLargeResponse, readLimitedText } from "@/server/http/limited-body";
import { log } from "@/server/log";
import { notifyHub } from "@/server/realtime/notify-hub";
import { agentTokenRevoked, type AgentIdentity } from "@/server/services/agent-tokens-service";
import { unauthorizedResponse, verifyAgentBearer } from "./verify-agent-bearer";

export interface AgentRouteContext<T> { agent: AgentIdentity; requestId: string; body: T; request: Request }

export function agentError(status: number, code: string, message: string, requestId?: string): Response {
  return Response.json({ error: { code, message } }, { status, headers: { "cache-control": "no-store", ...(requestId ? { "x-request-id": requestId } : {}) } });
}

export async function readJson<T>(request: Request, schema: z.ZodType<T>): Promise<{ ok: true; value: T } | { ok: false; response: Response }> {
  let text: string;
  try { text = await readLimitedText(request, env().AGENT_API_MAX_BODY_BYTES); } catch (error) {
    if (error instanceof BodyTooLargeError) return { ok: false, response: bodyTooLargeResponse(error) };
    throw error;
  }
  let json: unknown;
  try { json = JSON.parse(text); } catch {
    return { ok: false, response: agentError(400, "BAD_REQUEST", "the body is not valid JSON") };
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return { ok: false, response: agentError(400, "BAD_REQUEST", `${issue.path.join(".") || "body"}: ${issue.message}`) };
  }
  return { ok: true, value: parsed.data };
}

export function mapErrorToResponse(error: unknown, requestId: string): Response {
  if (error instanceof DomainError) return agentError(httpStatusFor[error.code], error.code, error.message, requestId);
  if (isDatabaseUnavailable(error)) {
    // The agent retries with backoff; one line, no stack: an outage is not a bug.
    log.warn("agent API: database unavailable", { requestId, message: (error as Error).message });
    const response = agentError(503, "UNAVAILABLE", DATABASE_UNAVAILABLE_MESSAGE, requestId);
    response.headers.set("retry-after", "2");
    return response;
  }
  log.error("agent API error", { requestId, error });
  return agentError(500, "INTERNAL", "internal error", requestId);
}

export function agentRoute<T>(schema: z.ZodType<T> | null, handler: (ctx: AgentRouteContext<T>) => Promise<Response>) {
  return async (request: Request): Promise<Response> => {
    const verified = await verifyAgentBearer(request);
    if (!verified.ok) return verified.response;
    let body = undefined as T;
    if (schema) {
      const read = await readJson(request, schema);
      if (!read.ok) return read.response;
      body = read.value;
    }
    try {
      return await handler({ agent: verified.agent, requestId: verified.requestId, body, request });
    } catch (error) {
      return mapErrorToResponse(error, verified.requestId);
    }
  };
}

export interface AgentLongPollContext extends AgentRouteContext<undefined> {
  /** Aborts when the agent hangs up or its token is revoked: pass it to the wait. */
  signal: AbortSignal;
}

/**
 * A long-poll route: as agentRoute, and held open only while the token stays valid. A revocation (NOTIFY
 * packrat_agent_token_revoked, from any replica) ends the wait at once and the agent gets 401, as on its next
 * request; so does a revocation that landed between authentication and listening (checked once listening).
 */
export function agentLongPoll(handler: (ctx: AgentLongPollContext) => Promise<Response>) {
  return agentRoute<undefined>(null, async (ctx) => {
    const held = new AbortController();
    let revoked = false;
    const onRevoked = () => { revoked = true; held.abort(); };
    const hangUp = () => held.abort();
    const outer = ctx.request.signal;
    const stopWatching = await notifyHub().watch("packrat_agent_token_revoked", ctx.agent.tokenId, onRevoked);
    try {
      if (outer.aborted) held.abort(); else outer.addEventListener("abort", hangUp, { once: true });
      if (await agentTokenRevoked(ctx.agent.tokenId)) onRevoked();
      const response = revoked ? undefined : await handler({ ...ctx, signal: held.signal });
      if (revoked) {
        log.info("agent long-poll ended: token revoked", { requestId: ctx.requestId, tokenId: ctx.agent.tokenId });
        return unauthorizedResponse("the agent token was revoked", ctx.requestId);
      }
      return response!;
    } finally {
      stopWatching();
      outer.removeEventListener("abort", hangUp);
    }
  });
}
