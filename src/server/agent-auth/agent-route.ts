// The shape of every agent API route: a declaration (who may call it, the contracts of its path parameters, query and
// body, whether it is a long-poll) and one service call. The builder verifies the token, validates each part against
// its contract (src/contracts), calls the handler with the typed values, answers its value as JSON, and maps errors
// to statuses once. A path that fails its contract names nothing (404); a query or body that fails is 400 saying
// which field. Every answer is `Cache-Control: no-store` unless the handler's own Response says otherwise (a
// content-addressed file). Error bodies: agentErrorSchema (src/contracts/agent-protocol.ts).
import type { z } from "zod";
import type { Cancellation, WaitSignal } from "@/core/cancellation/cancellation";
import { ENROLLMENT_TOKEN_PREFIX } from "@/server/services/enrollment-tokens-service";
import type { AgentErrorBody } from "@/contracts/agent-protocol";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "@/server/errors/database-unavailable";
import { classifyError } from "@/server/errors/error-mapping";
import { env } from "@/server/env";
import { BodyTooLargeError, bodyTooLargeResponse, readLimitedText } from "@/server/http/limited-body";
import { log, requestIdFrom } from "@/server/log";
import { notifyHub } from "@/server/realtime/notify-hub";
import type { RegisteringCaller } from "@/server/services/agent-registration-service";
import { agentTokenRevoked, type AgentIdentity } from "@/server/services/agent-tokens-service";
import { longPollIdentity } from "./long-poll-identities";
import { bearerToken, missingBearerResponse, unauthorizedResponse, verifyAgentBearer } from "./verify-agent-bearer";

/**
 * Who may call a route: "registered", an agent token bound to its agent (409 for a token that has not registered
 * yet); "token", any valid agent token; "enrollment", also an enrollment token (POST /register only).
 */
export type AgentAccess = "registered" | "token" | "enrollment";

type CallerFor<A extends AgentAccess> = A extends "registered"
  ? { agent: AgentIdentity & { agentId: string }; agentId: string }
  : A extends "token"
    ? { agent: AgentIdentity }
    : { caller: RegisteringCaller };

export interface AgentRouteSpec<A extends AgentAccess, P, Q, B> {
  access: A;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Held open only while the token stays valid: a revocation ends the wait at once with 401. Not with "enrollment". */
  longPoll?: A extends "enrollment" ? never : boolean;
}

export type AgentRouteContext<A extends AgentAccess, P, Q, B> = CallerFor<A> & {
  params: P;
  query: Q;
  body: B;
  requestId: string;
  request: Request;
  /** Aborts when the agent hangs up (and, on a long-poll, when its token is revoked): pass it to a wait. */
  signal: AbortSignal;
};

/** What a handler answers: a value (sent as JSON, 200) or a Response of its own (204, a stream). */
export type AgentRouteResult = Response | object;

type NextContext = { params: Promise<Record<string, string>> };

const noStore = { "cache-control": "no-store" } as const;

/** An error with the one body every agent route answers with. */
export function agentError(status: number, error: AgentErrorBody, requestId?: string): Response {
  return Response.json(
    { error },
    { status, headers: { ...noStore, ...(requestId ? { "x-request-id": requestId } : {}) } },
  );
}

/** 204: nothing newer within the hold. */
export const noContent = (): Response => new Response(null, { status: 204 });

export function mapErrorToResponse(error: unknown, requestId: string): Response {
  const classified = classifyError(error);
  if (classified) {
    const { httpStatus, domainCode, message, parameter, allowed } = classified;
    return agentError(
      httpStatus,
      { code: domainCode, message, ...(parameter !== undefined ? { parameter } : {}), ...(allowed ? { allowed } : {}) },
      requestId,
    );
  }
  if (error instanceof BodyTooLargeError) return bodyTooLargeResponse(error, requestId);
  if (isDatabaseUnavailable(error)) {
    // The agent retries with backoff; one line, no stack: an outage is not a bug.
    log.warn("agent API: database unavailable", { requestId, message: (error as Error).message });
    const response = agentError(503, { code: "UNAVAILABLE", message: DATABASE_UNAVAILABLE_MESSAGE }, requestId);
    response.headers.set("retry-after", "2");
    return response;
  }
  log.error("agent API error", { requestId, error });
  return agentError(500, { code: "INTERNAL", message: "internal error" }, requestId);
}

type Part = "params" | "query" | "body";
type Parsed<T> = { ok: true; value: T } | { ok: false; response: Response };

/** The first issue, as the agent reads it: the field, the code (a contract's own, e.g. unknown_job_kind), the values allowed. */
function refusal(part: Part, error: z.ZodError, requestId: string): Response {
  const issue = error.issues[0]!;
  const path = issue.path.map(String).join(".");
  const declared =
    issue.code === "custom" ? (issue.params as { code?: unknown; allowed?: unknown } | undefined) : undefined;
  const allowed = Array.isArray(declared?.allowed)
    ? declared.allowed.map(String)
    : issue.code === "invalid_value"
      ? issue.values.map(String)
      : undefined;
  const code = typeof declared?.code === "string" ? declared.code : part === "params" ? "NOT_FOUND" : "BAD_REQUEST";
  return agentError(
    part === "params" ? 404 : 400,
    {
      code,
      message: `${path || part}: ${issue.message}`,
      parameter: path || part,
      ...(allowed ? { allowed } : {}),
    },
    requestId,
  );
}

function validate<T>(part: Part, schema: z.ZodType<T> | undefined, value: unknown, requestId: string): Parsed<T> {
  if (!schema) return { ok: true, value: undefined as T };
  const parsed = schema.safeParse(value);
  return parsed.success
    ? { ok: true, value: parsed.data }
    : { ok: false, response: refusal(part, parsed.error, requestId) };
}

/** A body the server already read within the limit (the agent front, src/server/agent-api), in place of the stream. */
export type ReadBody = { text: string } | { tooLargeFor: number };
const readBodies = new WeakMap<Request, ReadBody>();

/** The Request stands for its body already read: agentRoute takes it from here instead of reading the stream. */
export function withReadBody(request: Request, body: ReadBody): Request {
  readBodies.set(request, body);
  return request;
}

async function readBody<T>(request: Request, schema: z.ZodType<T> | undefined, requestId: string): Promise<Parsed<T>> {
  if (!schema) return { ok: true, value: undefined as T };
  let text: string;
  try {
    const read = readBodies.get(request);
    if (read && "tooLargeFor" in read) throw new BodyTooLargeError(read.tooLargeFor);
    text = read ? read.text : await readLimitedText(request, env().AGENT_API_MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) return { ok: false, response: bodyTooLargeResponse(error, requestId) };
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return {
      ok: false,
      response: agentError(
        400,
        { code: "BAD_REQUEST", message: "the body is not valid JSON", parameter: "body" },
        requestId,
      ),
    };
  }
  return validate("body", schema, json, requestId);
}

type Authenticated =
  | { ok: true; requestId: string; agent?: AgentIdentity; caller?: RegisteringCaller }
  | { ok: false; response: Response };

async function authenticate(request: Request, access: AgentAccess): Promise<Authenticated> {
  if (access === "enrollment") {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "")?.[1];
    if (bearer?.startsWith(ENROLLMENT_TOKEN_PREFIX))
      return { ok: true, requestId: requestIdFrom(request.headers), caller: { kind: "enrollment", token: bearer } };
  }
  const verified = await verifyAgentBearer(request);
  if (!verified.ok) return verified;
  return {
    ok: true,
    requestId: verified.requestId,
    agent: verified.agent,
    ...(access === "enrollment" ? { caller: { kind: "agent" as const, agent: verified.agent } } : {}),
  };
}

/** The handler's answer with the headers every agent answer has. */
function finish(result: AgentRouteResult, requestId: string): Response {
  const response = result instanceof Response ? result : Response.json(result);
  if (!response.headers.has("cache-control")) response.headers.set("cache-control", "no-store");
  if (!response.headers.has("x-request-id")) response.headers.set("x-request-id", requestId);
  return response;
}

export function agentRoute<A extends AgentAccess, P = undefined, Q = undefined, B = undefined>(
  spec: AgentRouteSpec<A, P, Q, B>,
  handler: (ctx: AgentRouteContext<A, P, Q, B>) => Promise<AgentRouteResult>,
): (request: Request, context?: NextContext) => Promise<Response> {
  return async (request, context) => {
    const checkedFrom = performance.now();
    const auth = await authenticate(request, spec.access);
    if (!auth.ok) return auth.response;
    const { requestId } = auth;
    try {
      const params = validate("params", spec.params, context ? await context.params : {}, requestId);
      if (!params.ok) return params.response;
      const query = validate("query", spec.query, Object.fromEntries(new URL(request.url).searchParams), requestId);
      if (!query.ok) return query.response;
      const body = await readBody(request, spec.body, requestId);
      if (!body.ok) return body.response;
      // After the body (read within its limit either way), as the services refused an unregistered token before.
      if (spec.access === "registered" && !auth.agent!.agentId) {
        return agentError(
          409,
          { code: "CONFLICT", message: "this token has not registered an agent yet: POST /register first" },
          requestId,
        );
      }
      const caller =
        spec.access === "registered"
          ? { agent: auth.agent, agentId: auth.agent!.agentId }
          : spec.access === "token"
            ? { agent: auth.agent }
            : { caller: auth.caller };
      const ctx = {
        ...caller,
        params: params.value,
        query: query.value,
        body: body.value,
        requestId,
        request,
        signal: request.signal,
      } as unknown as AgentRouteContext<A, P, Q, B>;
      if (!spec.longPoll) return finish(await handler(ctx), requestId);
      return await held(auth.agent!, checkedFrom, ctx, handler);
    } catch (error) {
      return mapErrorToResponse(error, requestId);
    }
  };
}

/** A request as the agent front (src/server/agent-api) has it, for a route's fast path: no Request object built. */
export interface FastAgentRequest {
  authorization: string | undefined;
  requestId: string | undefined;
  body: ReadBody;
}

/** A fast path's whole answer (JSON), or undefined: the request takes the route's ordinary path instead. */
export type FastAgentAnswer = { status: number; headers: Record<string, string>; body: string };
type FastAgentHandler = (request: FastAgentRequest) => Promise<FastAgentAnswer | undefined>;
const fastHandlers = new WeakMap<object, FastAgentHandler>();

/** The fast path of a route handler built here, when it has one (agentRouteWithToken's: the heartbeat). */
export function fastAgentHandler(handler: object): FastAgentHandler | undefined {
  return fastHandlers.get(handler);
}

/** A Response the ordinary path would send, as a fast path's answer (for the rare answers that are not 200). */
async function fastAnswerOf(response: Response): Promise<FastAgentAnswer> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => (headers[name] = value));
  return { status: response.status, headers, body: await response.text() };
}

const REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * A "registered" route (a body, no params or query) whose service verifies the bearer token itself, in the same
 * statement as its own work (the heartbeat: token and lease in one round trip). `withToken` gets the token and the
 * validated body; null means the token is unknown or revoked (401); a token not registered yet is its 409 to throw.
 * A request refused before it (a bad or too large body) is authenticated the ordinary way first, so a bad token
 * still answers 401 before anything else, as on every agent route.
 */
export function agentRouteWithToken<B>(
  spec: { body: z.ZodType<B> },
  withToken: (token: string, body: B, requestId: string) => Promise<object | null>,
): (request: Request, context?: NextContext) => Promise<Response> {
  const route = async (request: Request): Promise<Response> => {
    const requestId = requestIdFrom(request.headers);
    const token = bearerToken(request.headers);
    if (!token) return missingBearerResponse(requestId);
    try {
      const body = await readBody(request, spec.body, requestId);
      if (!body.ok) {
        const auth = await verifyAgentBearer(request);
        return auth.ok ? body.response : auth.response;
      }
      const result = await withToken(token, body.value, requestId);
      if (!result) {
        log.info("agent token refused", { requestId, path: new URL(request.url).pathname });
        return unauthorizedResponse("the agent token is unknown or revoked", requestId);
      }
      return finish(result, requestId);
    } catch (error) {
      return mapErrorToResponse(error, requestId);
    }
  };
  // The same, straight from the agent front's reading of the request: what is not the common case (no token, a
  // body too large, not JSON or not valid) takes the ordinary path above, which answers it as always.
  fastHandlers.set(route, async ({ authorization, requestId: given, body }) => {
    const token = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    if (!token || "tooLargeFor" in body) return undefined;
    let json: unknown;
    try {
      json = JSON.parse(body.text);
    } catch {
      return undefined;
    }
    const parsed = spec.body.safeParse(json);
    if (!parsed.success) return undefined;
    const requestId = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    try {
      const result = await withToken(token, parsed.data, requestId);
      if (!result) {
        log.info("agent token refused", { requestId });
        return await fastAnswerOf(unauthorizedResponse("the agent token is unknown or revoked", requestId));
      }
      return {
        status: 200,
        headers: { "content-type": "application/json", "cache-control": "no-store", "x-request-id": requestId },
        body: JSON.stringify(result),
      };
    } catch (error) {
      return await fastAnswerOf(mapErrorToResponse(error, requestId));
    }
  });
  return route;
}

/**
 * A long-poll: held open only while the token stays valid. A revocation (NOTIFY packrat_agent_token_revoked, from
 * any replica) ends the wait at once and the agent gets 401, as on its next request; so does a revocation that
 * landed between authentication and listening (checked once listening: from the NOTIFYs this process heard, or the
 * database when it was not listening all the while).
 */
async function held<A extends AgentAccess, P, Q, B>(
  agent: AgentIdentity,
  /** performance.now() before the token was checked. */
  checkedFrom: number,
  ctx: AgentRouteContext<A, P, Q, B>,
  handler: (ctx: AgentRouteContext<A, P, Q, B>) => Promise<AgentRouteResult>,
): Promise<Response> {
  const hold = new AbortController();
  let revoked = false;
  const onRevoked = () => {
    revoked = true;
    hold.abort();
  };
  const hangUp = () => hold.abort();
  const outer = ctx.request.signal;
  const stopWatching = await notifyHub().watch("packrat_agent_token_revoked", agent.tokenId, onRevoked);
  try {
    if (outer.aborted) hold.abort();
    else outer.addEventListener("abort", hangUp, { once: true });
    // What the NOTIFYs heard since the token was checked, when this process listened all along; else the database.
    if (notifyHub().revokedSince(agent.tokenId, checkedFrom) ?? (await agentTokenRevoked(agent.tokenId))) onRevoked();
    const result = revoked ? undefined : await handler({ ...ctx, signal: hold.signal });
    if (revoked) {
      log.info("agent long-poll ended: token revoked", { requestId: ctx.requestId, tokenId: agent.tokenId });
      return unauthorizedResponse("the agent token was revoked", ctx.requestId);
    }
    return finish(result!, ctx.requestId);
  } finally {
    stopWatching();
    outer.removeEventListener("abort", hangUp);
  }
}

/** A long-poll as the agent front has it: the raw query string and a cancellation the front aborts on hang-up. */
export interface FastLongPollRequest {
  authorization: string | undefined;
  requestId: string | undefined;
  /** The query string, without the "?" ("" when none). */
  query: string;
  /** Aborted when the agent hangs up; the fast path aborts it too when the token is revoked. */
  hangUp: Cancellation;
}

/** A fast long-poll's answer; a null body is an answer without one (204). */
export type FastLongPollAnswer = { status: number; headers: Record<string, string>; body: string | null };
type FastLongPollHandler = (request: FastLongPollRequest) => Promise<FastLongPollAnswer | undefined>;
const fastLongPolls = new WeakMap<object, FastLongPollHandler>();

/** The fast path of a long-poll built by agentLongPoll, when the handler is one. */
export function fastLongPollHandler(handler: object): FastLongPollHandler | undefined {
  return fastLongPolls.get(handler);
}

export interface AgentLongPollContext<Q> {
  agentId: string;
  query: Q;
  requestId: string;
  /** Aborts when the agent hangs up or its token is revoked: pass it to the wait. */
  signal: WaitSignal;
}

/**
 * A "registered" long-poll with a query and no params or body (GET /desired, GET /jobs/next): agentRoute's ordinary
 * path, and a fast one for the agent front that builds no Request, Response or AbortSignal per poll. What is not the
 * common case (no token, a query that fails its contract) takes the ordinary path, which answers it as always.
 */
export function agentLongPoll<Q>(
  spec: { query: z.ZodType<Q> },
  /** Undefined: nothing within the hold (204). */
  handler: (ctx: AgentLongPollContext<Q>) => Promise<AgentRouteResult | undefined>,
): (request: Request, context?: NextContext) => Promise<Response> {
  const route = agentRoute({ access: "registered", query: spec.query, longPoll: true }, async (ctx) => {
    const result = await handler({
      agentId: ctx.agentId,
      query: ctx.query,
      requestId: ctx.requestId,
      signal: ctx.signal,
    });
    return result ?? noContent();
  });
  fastLongPolls.set(route, async ({ authorization, requestId: given, query: search, hangUp }) => {
    const token = authorization ? /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] : undefined;
    if (!token) return undefined;
    const query = spec.query.safeParse(Object.fromEntries(new URLSearchParams(search)));
    if (!query.success) return undefined;
    const requestId = given && REQUEST_ID.test(given) ? given : crypto.randomUUID();
    const headers = { "cache-control": "no-store", "x-request-id": requestId };
    let stopWatching: (() => void) | undefined;
    try {
      let agent: AgentIdentity | null;
      let checkedFrom: number;
      try {
        ({ agent, checkedFrom } = await longPollIdentity(token));
      } catch (error) {
        if (!isDatabaseUnavailable(error)) throw error;
        return undefined; // the ordinary path answers an outage (503) as on every route
      }
      if (!agent) {
        log.info("agent token refused", { requestId });
        return await fastAnswerOf(unauthorizedResponse("the agent token is unknown or revoked", requestId));
      }
      if (!agent.agentId) {
        return await fastAnswerOf(
          agentError(
            409,
            { code: "CONFLICT", message: "this token has not registered an agent yet: POST /register first" },
            requestId,
          ),
        );
      }
      // As held(): a revocation, heard or landed between the check and listening, ends the wait with 401.
      let revoked = false;
      const onRevoked = () => {
        revoked = true;
        hangUp.abort();
      };
      stopWatching = await notifyHub().watch("packrat_agent_token_revoked", agent.tokenId, onRevoked);
      if (notifyHub().revokedSince(agent.tokenId, checkedFrom) ?? (await agentTokenRevoked(agent.tokenId))) onRevoked();
      const result = revoked
        ? undefined
        : await handler({ agentId: agent.agentId, query: query.data, requestId, signal: hangUp });
      if (revoked) {
        log.info("agent long-poll ended: token revoked", { requestId, tokenId: agent.tokenId });
        return await fastAnswerOf(unauthorizedResponse("the agent token was revoked", requestId));
      }
      if (result === undefined) return { status: 204, headers, body: null };
      if (result instanceof Response) return await fastAnswerOf(finish(result, requestId));
      return {
        status: 200,
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(result),
      };
    } catch (error) {
      return await fastAnswerOf(mapErrorToResponse(error, requestId));
    } finally {
      stopWatching?.();
    }
  });
  return route;
}
