// /api/auth/*: what stands between the browser and better-auth. Only the endpoints the dashboard uses are
// reachable (sign-in, sign-out, get-session); the others better-auth ships (sign-up, change-password,
// delete-user, …) answer 404, so every change to a user goes through the audited users service. POSTs pass
// the CSRF check; sign-in attempts pass the PostgreSQL throttle (429 with Retry-After; sign-in-throttle.ts); sign-in, its
// failures and sign-out are audited.
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { log, requestIdFrom, type Logger } from "@/server/log";
import { recordAudit } from "@/server/audit/record-audit";
import { normalizeEmail } from "@/server/services/users-service";
import { clientAddress } from "@/server/http/client-address";
import { BodyTooLargeError, bodyTooLargeResponse, withLimitedBody } from "@/server/http/limited-body";
import { auth } from "./auth";
import { forbiddenResponse, mutationRejection } from "./request-guard";
import { getSessionUser } from "./session";
import { consumeSignInAttempt, recordSignInSuccess, signInLimits } from "./sign-in-throttle";

const endpoints: Record<string, "GET" | "POST"> = {
  "/sign-in/email": "POST",
  "/sign-out": "POST",
  "/get-session": "GET",
};

function withHeaders(response: Response, headers: Record<string, string>): Response {
  const copy = new Response(response.body, response);
  for (const [name, value] of Object.entries(headers)) copy.headers.set(name, value);
  return copy;
}

/** A sign-in is an email and a password: nothing legitimate comes near this. */
const AUTH_MAX_BODY_BYTES = 16 * 1024;

export async function handleAuthRequest(incoming: Request): Promise<Response> {
  const requestId = requestIdFrom(incoming.headers);
  let request: Request;
  try {
    request = await withLimitedBody(incoming, Math.min(AUTH_MAX_BODY_BYTES, env().DASHBOARD_MAX_BODY_BYTES));
  } catch (error) {
    if (error instanceof BodyTooLargeError) return bodyTooLargeResponse(error, requestId);
    throw error;
  }
  return handleBoundedAuthRequest(request, requestId);
}

async function handleBoundedAuthRequest(request: Request, requestId: string): Promise<Response> {
  const logger = log.child({ requestId });
  const path = new URL(request.url).pathname.replace(/^\/api\/auth/, "");
  const method = endpoints[path];
  if (!method)
    return Response.json(
      { error: { code: "NOT_FOUND", message: `no auth endpoint ${path}` } },
      { status: 404, headers: { "x-request-id": requestId } },
    );
  if (method === "POST") {
    const rejection = mutationRejection(request, env().PACKRAT_PUBLIC_URL);
    if (rejection) {
      logger.warn("auth request refused", { path, reason: rejection });
      return forbiddenResponse(rejection, requestId);
    }
  } else if (request.method !== method) {
    return Response.json(
      { error: { code: "METHOD_NOT_ALLOWED", message: `${path} takes ${method}` } },
      { status: 405, headers: { allow: method, "x-request-id": requestId } },
    );
  }
  let response: Response;
  if (path === "/sign-in/email") response = await signIn(request, requestId, logger);
  else if (path === "/sign-out") response = await signOut(request, requestId, logger);
  else response = await auth().handler(request);
  return withHeaders(response, { "x-request-id": requestId, "cache-control": "no-store" });
}

async function signIn(request: Request, requestId: string, logger: Logger): Promise<Response> {
  const body = (await request
    .clone()
    .json()
    .catch(() => null)) as { email?: unknown } | null;
  // No email: nothing to count; better-auth answers with its validation error.
  if (typeof body?.email !== "string" || !body.email.trim()) return auth().handler(request);
  const email = normalizeEmail(body.email);
  const config = env();
  const ip = clientAddress(request.headers, config.PACKRAT_TRUSTED_PROXY_HOPS);
  const decision = await consumeSignInAttempt(db(), signInLimits(), { email, ip }, Date.now());
  if (!decision.allowed) {
    // Logged, not audited: a flood of refused attempts must not flood the audit log.
    logger.warn("sign-in rate limited", {
      email,
      ip,
      key: decision.key,
      retryAfterSeconds: decision.retryAfterSeconds,
    });
    const wait = decision.retryAfterSeconds;
    const minutes = Math.ceil(wait / 60);
    const when = wait < 60 ? `${wait} second${wait === 1 ? "" : "s"}` : `${minutes} minute${minutes === 1 ? "" : "s"}`;
    return Response.json(
      { code: "RATE_LIMITED", message: `Too many failed sign-ins. Try again in ${when}.` },
      { status: 429, headers: { "retry-after": String(decision.retryAfterSeconds) } },
    );
  }
  const response = await auth().handler(request);
  if (response.ok) {
    const data = (await response.clone().json()) as { user: { id: string } };
    await recordSignInSuccess(db(), { email, ip });
    await recordAudit(db(), {
      actor: { type: "user", id: data.user.id, label: email },
      action: "auth.sign_in",
      target: { type: "user", id: data.user.id, label: email },
      after: { ip },
      requestId,
    });
    logger.info("signed in", { userId: data.user.id });
  } else {
    const data = (await response
      .clone()
      .json()
      .catch(() => ({}))) as { code?: string };
    const user = await db().user.findUnique({ where: { email }, select: { id: true } });
    await recordAudit(db(), {
      actor: { type: "anonymous", label: email },
      action: "auth.sign_in_failed",
      target: user ? { type: "user", id: user.id, label: email } : undefined,
      after: { reason: data.code ?? `HTTP ${response.status}`, ip },
      requestId,
    });
    logger.info("sign-in failed", { email, ip, status: response.status, reason: data.code });
  }
  return response;
}

async function signOut(request: Request, requestId: string, logger: Logger): Promise<Response> {
  const user = await getSessionUser(request.headers);
  const response = await auth().handler(request);
  if (response.ok && user) {
    await recordAudit(db(), {
      actor: { type: "user", id: user.id, label: user.email },
      action: "auth.sign_out",
      target: { type: "user", id: user.id, label: user.email },
      requestId,
    });
    logger.info("signed out", { userId: user.id });
  }
  return response;
}
