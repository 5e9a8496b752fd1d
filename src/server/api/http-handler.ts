// /api/trpc over HTTP: the CSRF check in front of tRPC, and the request id on every response. A mutation is
// accepted only as a JSON POST from the dashboard's origin (request-guard.ts); a mutation asked for with GET
// is refused with 403 too, not left to tRPC's 405. Queries stay GET, so browsers and server components read
// freely. The caller is the session cookie's user or a personal API token's (createTrpcContext), never an agent
// token; a token caller is exempt from the Origin check (no browser sends it by itself), never from role checks.
import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { appRouter } from "@/server/api/root";
import { createTrpcContext } from "@/server/api/trpc";
import { forbiddenResponse, mutationRejection } from "@/server/auth/request-guard";
import { env } from "@/server/env";
import { bearerApiToken } from "@/server/services/api-tokens-service";
import { BodyTooLargeError, bodyTooLargeResponse, withLimitedBody } from "@/server/http/limited-body";
import { log, requestIdFrom } from "@/server/log";
import { TRPC_MAX_BATCH_CALLS } from "@/trpc/batch-limit";

export const TRPC_ENDPOINT = "/api/trpc";

function namesAMutation(request: Request): boolean {
  const paths = decodeURIComponent(new URL(request.url).pathname.slice(TRPC_ENDPOINT.length + 1)).split(",");
  const procedures = appRouter._def.procedures as Record<string, { _def?: { type?: string } } | undefined>;
  return paths.some((path) => procedures[path]?._def?.type === "mutation");
}

export async function handleTrpcRequest(incoming: Request): Promise<Response> {
  const requestId = requestIdFrom(incoming.headers);
  // Read (bounded) before tRPC parses anything.
  let request: Request;
  try {
    request = await withLimitedBody(incoming, env().DASHBOARD_MAX_BODY_BYTES);
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      log.warn("trpc request refused", { requestId, path: new URL(incoming.url).pathname, reason: error.message });
      return bodyTooLargeResponse(error, requestId);
    }
    throw error;
  }
  const readOnly = request.method === "GET" || request.method === "HEAD";
  const rejection = readOnly
    ? namesAMutation(request)
      ? `changes are accepted only as POST (got ${request.method})`
      : null
    : mutationRejection(request, env().PACKRAT_PUBLIC_URL, { bearer: bearerApiToken(request.headers) !== null });
  if (rejection) {
    log.warn("trpc request refused", {
      requestId,
      method: request.method,
      path: new URL(request.url).pathname,
      reason: rejection,
    });
    return forbiddenResponse(rejection, requestId);
  }
  return fetchRequestHandler({
    endpoint: TRPC_ENDPOINT,
    req: request,
    router: appRouter,
    maxBatchSize: TRPC_MAX_BATCH_CALLS,
    createContext: () => createTrpcContext({ headers: request.headers, requestId }),
    responseMeta: () => ({ headers: new Headers({ "x-request-id": requestId }) }),
    onError: ({ error, path }) => {
      // Procedure errors are logged by the logCalls middleware; this catches the rest (unknown path, bad JSON).
      if (!path || !(path in appRouter._def.procedures))
        log.info("trpc request failed", { requestId, path, code: error.code, message: error.message });
    },
  });
}
