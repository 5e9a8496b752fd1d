// The agent API's own front door in the production web process (scripts/serve.ts): requests under /api/agent/v1/
// go straight to the route handlers of src/app/api/agent/v1 (the same modules Next serves, built by agentRoute, handed
// in from route-table.ts there: src/server never imports routes),
// without Next's router and rendering pipeline, which cost more than a heartbeat's own work. What Next gave these
// routes is kept here: the security headers of next.config.ts, 404 for an unknown path and 405 for a method a route
// does not have (in the agent error shape), HEAD and OPTIONS, streamed answers (artifacts), and a signal that aborts
// when the agent hangs up (long-polls). Bodies are read here within AGENT_API_MAX_BODY_BYTES and handed over read.
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Cancellation } from "@/core/cancellation/cancellation";
import {
  agentError,
  fastAgentHandler,
  fastLongPollHandler,
  withReadBody,
  type ReadBody,
} from "@/server/agent-auth/agent-route";
import { env } from "@/server/env";
import { apiContentSecurityPolicy, staticSecurityHeaders } from "@/server/http/security-headers";
import { log, requestIdFrom } from "@/server/log";

export const AGENT_API_PREFIX = "/api/agent/v1/";

type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];
type Handlers = Partial<Record<Method, Handler>>;

interface Route {
  /** Path segments after the prefix; "[name]" is a parameter. */
  segments: readonly string[];
  handlers: Handlers;
  allow: string;
}

/** A route module by its path under src/app/api/agent/v1 ("jobs/[id]/cells"): its exported method handlers. */
export type AgentRouteModules = ReadonlyArray<readonly [path: string, module: object]>;

function routeTable(modules: AgentRouteModules): Route[] {
  return modules.map(([path, module]) => {
    const handlers: Handlers = {};
    for (const method of METHODS) {
      const handler = (module as Record<string, unknown>)[method];
      if (typeof handler === "function") handlers[method] = handler as Handler;
    }
    const methods = Object.keys(handlers);
    if (handlers.GET) methods.push("HEAD");
    return { segments: path.split("/"), handlers, allow: [...methods, "OPTIONS"].join(", ") };
  });
}

const isParam = (segment: string) => segment.startsWith("[") && segment.endsWith("]");

/** The route and its parameters; a literal segment wins over a parameter (jobs/next before jobs/[id]/…). */
function match(routes: readonly Route[], path: string): { route: Route; params: Record<string, string> } | undefined {
  const parts = path.split("/");
  let best: { route: Route; params: Record<string, string>; literals: number } | undefined;
  for (const route of routes) {
    if (route.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    let literals = 0;
    let ok = true;
    for (let i = 0; i < parts.length && ok; i++) {
      const segment = route.segments[i]!;
      if (isParam(segment)) {
        try {
          params[segment.slice(1, -1)] = decodeURIComponent(parts[i]!);
        } catch {
          ok = false; // a malformed escape names nothing
        }
        ok &&= parts[i] !== "";
      } else if (segment === parts[i]) literals++;
      else ok = false;
    }
    if (ok && (!best || literals > best.literals)) best = { route, params, literals };
  }
  return best;
}

/** The agent went away before its request was read: nobody to answer. */
class HungUp extends Error {}

/** The body within `limitBytes`: past it (declared or counted), only that, and the rest is not read (the request is
 *  paused, not destroyed: its socket still carries the answer). */
function readBody(req: IncomingMessage, limitBytes: number): Promise<ReadBody> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > limitBytes) return Promise.resolve({ tooLargeFor: limitBytes });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    const done = (body: ReadBody | HungUp) => {
      req.off("data", onData).off("end", onEnd).off("error", onClose).off("close", onClose);
      if (body instanceof HungUp) reject(body);
      else resolve(body);
    };
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= limitBytes) return void chunks.push(chunk);
      req.pause();
      done({ tooLargeFor: limitBytes });
    };
    // TextDecoder, as readLimitedText: the same text whichever door the body came in by.
    const onEnd = () =>
      done({ text: new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)) });
    const onClose = () => done(new HungUp());
    req.on("data", onData).on("end", onEnd).on("error", onClose).on("close", onClose);
  });
}

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else headers.set(name, value);
  }
  return headers;
}

function setCommonHeaders(res: ServerResponse): void {
  for (const { key, value } of staticSecurityHeaders) res.setHeader(key, value);
  res.setHeader("content-security-policy", apiContentSecurityPolicy);
}

async function send(res: ServerResponse, response: Response, head: boolean, closeAfter: boolean): Promise<void> {
  res.statusCode = response.status;
  setCommonHeaders(res);
  const cookies = response.headers.getSetCookie();
  response.headers.forEach((value, name) => {
    if (name !== "set-cookie") res.setHeader(name, value);
  });
  if (cookies.length) res.setHeader("set-cookie", cookies);
  if (closeAfter) res.setHeader("connection", "close");
  if (!response.body || head) {
    await response.body?.cancel().catch(() => {});
    res.end();
    return;
  }
  if (response.headers.get("content-type")?.startsWith("application/json")) {
    // A JSON answer is small and whole: one write, no stream adapters.
    const bytes = Buffer.from(await response.arrayBuffer());
    res.setHeader("content-length", bytes.byteLength);
    res.end(bytes);
    return;
  }
  // A stream (a model file): backpressure from the socket; a hang-up destroys the source (and closes the file).
  await pipeline(Readable.fromWeb(response.body as import("node:stream/web").ReadableStream), res).catch(() => {});
}

export interface AgentFront {
  /** Serves a request under /api/agent/v1/ and answers true; anything else is left to the caller (false), untouched. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
  /** Requests whose route handler has not answered yet (long-polls held open among them). */
  inFlight(): number;
}

/** The front over these route modules (src/app/api/agent/v1/route-table.ts lists them all). */
export function createAgentFront(modules: AgentRouteModules): AgentFront {
  const routes = routeTable(modules);
  let inFlight = 0;
  const handle = (req: IncomingMessage, res: ServerResponse): boolean => {
    const url = req.url ?? "/";
    if (!url.startsWith(AGENT_API_PREFIX)) return false;
    const query = url.indexOf("?");
    const path = url.slice(AGENT_API_PREFIX.length, query === -1 ? undefined : query);
    // A trailing slash is Next's to redirect, as before.
    if (path.endsWith("/")) return false;
    inFlight++;
    let answered = false;
    const onAnswered = () => {
      if (!answered) inFlight--;
      answered = true;
    };
    void serve(routes, path, req, res, onAnswered)
      .catch((error: unknown) => {
        if (error instanceof HungUp || (req.destroyed && res.destroyed)) return void res.destroy();
        log.error("agent front error", { error });
        if (!res.headersSent) {
          res.statusCode = 500;
          setCommonHeaders(res);
          res.setHeader("content-type", "application/json");
          res.end(JSON.stringify({ error: { code: "INTERNAL", message: "internal error" } }));
        } else res.destroy();
      })
      .finally(onAnswered);
    return true;
  };
  return { handle, inFlight: () => inFlight };
}

async function serve(
  routes: readonly Route[],
  path: string,
  req: IncomingMessage,
  res: ServerResponse,
  onAnswered: () => void,
): Promise<void> {
  const method = req.method ?? "GET";
  const found = match(routes, path);
  if (!found) {
    const requestId = requestIdFrom(toHeaders(req));
    return send(
      res,
      agentError(404, { code: "NOT_FOUND", message: `no agent API route at ${AGENT_API_PREFIX}${path}` }, requestId),
      method === "HEAD",
      false,
    );
  }
  const { route, params } = found;
  if (method === "OPTIONS") {
    res.statusCode = 204;
    setCommonHeaders(res);
    res.setHeader("allow", route.allow);
    res.end();
    return;
  }
  const handler = route.handlers[(method === "HEAD" ? "GET" : method) as Method];
  if (!handler) {
    const response = agentError(
      405,
      { code: "METHOD_NOT_ALLOWED", message: `${method} is not allowed here (allowed: ${route.allow})` },
      requestIdFrom(toHeaders(req)),
    );
    response.headers.set("allow", route.allow);
    return send(res, response, method === "HEAD", false);
  }
  // The agent hung up before its answer was sent: a long-poll stops waiting, a stream stops reading. The signal
  // (the ordinary path's) is made only when a Request is; a fast long-poll has a Cancellation, cheaper.
  let hangUp: AbortController | undefined = undefined;
  let fastHangUp: Cancellation | undefined;
  let hungUp = false;
  res.on("close", () => {
    if (res.writableFinished) return;
    hungUp = true;
    hangUp?.abort();
    fastHangUp?.abort();
  });
  const header = (name: string) => {
    const value = req.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const fastPoll = method === "GET" ? fastLongPollHandler(handler) : undefined;
  if (fastPoll) {
    // A long-poll (GET /desired, GET /jobs/next) held on the notify hub, its answer written here.
    fastHangUp = new Cancellation();
    if (hungUp) fastHangUp.abort();
    const query = req.url!.indexOf("?");
    const answer = await fastPoll({
      authorization: header("authorization"),
      requestId: header("x-request-id"),
      query: query === -1 ? "" : req.url!.slice(query + 1),
      hangUp: fastHangUp,
    });
    fastHangUp = undefined;
    if (answer) {
      onAnswered();
      res.statusCode = answer.status;
      setCommonHeaders(res);
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      if (answer.body === null) return void res.end();
      const bytes = Buffer.from(answer.body);
      res.setHeader("content-length", bytes.byteLength);
      res.end(bytes);
      return;
    }
  }
  const hasBody = method !== "GET" && method !== "HEAD";
  const body = hasBody ? await readBody(req, env().AGENT_API_MAX_BODY_BYTES) : undefined;
  // A route with a fast path (the heartbeat) answers from what was read here, without a Request or a Response.
  const fast = body ? fastAgentHandler(handler) : undefined;
  if (fast && body) {
    const answer = await fast({ authorization: header("authorization"), requestId: header("x-request-id"), body });
    if (answer) {
      onAnswered();
      res.statusCode = answer.status;
      setCommonHeaders(res);
      for (const [name, value] of Object.entries(answer.headers)) res.setHeader(name, value);
      const bytes = Buffer.from(answer.body);
      res.setHeader("content-length", bytes.byteLength);
      res.end(bytes);
      return;
    }
  }
  let href: string;
  try {
    href = new URL(req.url!, `http://${req.headers.host ?? "localhost"}`).href;
  } catch {
    href = new URL(req.url!, "http://localhost").href; // a Host header that is no host: the path is what matters
  }
  hangUp = new AbortController();
  if (hungUp) hangUp.abort();
  const request = new Request(href, { method, headers: toHeaders(req), signal: hangUp.signal });
  if (body) withReadBody(request, body);
  const response = await handler(request, { params: Promise.resolve(params) }).finally(onAnswered);
  // A body left unread (past the limit) is not drained: the connection ends with the answer.
  await send(res, response, method === "HEAD", body !== undefined && "tooLargeFor" in body);
}
