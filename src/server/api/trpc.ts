// The one tRPC init file: context, error formatting, and the closed set of base procedures. Every procedure
// starts from exactly one of: publicProcedure, authenticatedProcedure, or one gate per role
// (mlEngineerProcedure, sreProcedure, managerProcedure, adminProcedure; admin passes every gate). The gates
// run before `.input()` parsing, so a caller without the role gets FORBIDDEN, never a validation error.
// src/server/api/access-matrix.ts lists who may call what; its integration test holds the router to it.
import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import { z, ZodError } from "zod";
import { roleSatisfies, type Role } from "@/core/security/roles";
import { getSession, type SessionUser, type SignedInSession } from "@/server/auth/session";
import { DATABASE_UNAVAILABLE_MESSAGE, isDatabaseUnavailable } from "@/server/errors/database-unavailable";
import { invalidInput } from "@/server/errors/domain-errors";
import { classifyError } from "@/server/errors/error-mapping";
import { log, requestIdFrom, type Logger } from "@/server/log";
import { authenticateApiToken, bearerApiToken } from "@/server/services/api-tokens-service";
import { findUnstorableText } from "./storable-input";

export interface TrpcContext {
  headers: Headers;
  requestId: string;
  log: Logger;
  /**
   * The caller, looked up on first use: a personal API token's user (Authorization: Bearer prpat_…, with the token's
   * role; the cookie is then ignored), else the session cookie's. Agent tokens are never accepted here.
   */
  getUser: () => Promise<SessionUser | null>;
  /** The id of the session the request came with (null: anonymous), for what must keep it (a password change). */
  getSessionId: () => Promise<string | null>;
}

function callerOf(headers: Headers, signedIn: () => Promise<SignedInSession | null>): Promise<SessionUser | null> {
  const token = bearerApiToken(headers);
  return token ? authenticateApiToken(token) : signedIn().then((s) => s?.user ?? null);
}

export async function createTrpcContext(opts: { headers: Headers; requestId?: string }): Promise<TrpcContext> {
  const requestId = opts.requestId ?? requestIdFrom(opts.headers);
  let session: Promise<SignedInSession | null> | undefined;
  const signedIn = () => (session ??= getSession(opts.headers));
  let user: Promise<SessionUser | null> | undefined;
  return {
    headers: opts.headers,
    requestId,
    log: log.child({ requestId }),
    getUser: () => (user ??= callerOf(opts.headers, signedIn)),
    // A token caller has no session of its own (the cookie is ignored then).
    getSessionId: async () => (bearerApiToken(opts.headers) ? null : ((await signedIn())?.sessionId ?? null)),
  };
}

/** What a caller reads for an error that is a fault of the server, not of the call: the details go to the log only. */
export function internalErrorMessage(requestId: string | undefined): string {
  return `Something went wrong on the server${requestId ? ` (request id ${requestId})` : ""}; it has been logged`;
}

const t = initTRPC.context<TrpcContext>().create({
  transformer: superjson,
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause;
    // An error no service classified (a driver's or a library's words, a bug) never reaches the caller as text:
    // it can name tables, paths or connection details. The logCalls middleware has logged it with the request id.
    const internal = error.code === "INTERNAL_SERVER_ERROR";
    const classified = classifyError(cause);
    return {
      ...shape,
      message: internal ? internalErrorMessage(ctx?.requestId) : shape.message,
      data: {
        ...shape.data,
        // zod issues field by field, so a form can show each next to its input.
        fieldErrors: cause instanceof ZodError ? z.flattenError(cause).fieldErrors : undefined,
        // The domain's code and the input at fault (a DomainError's field, src/core's parameter).
        domainCode: classified?.domainCode,
        parameter: classified?.parameter,
        stack: undefined,
      },
    };
  },
});

// Classified errors become tRPC errors here, once: a service's DomainError by its code, and src/core's refusal of
// its input (CoreInputError) as BAD_REQUEST naming the input, so no service converts them itself.
// So are lost database connections: 503 with a message that says to retry, not a 500 with a driver's words.
const mapDomainErrors = t.middleware(async ({ next }) => {
  const result = await next();
  const classified = result.ok ? undefined : classifyError(result.error.cause);
  if (!result.ok && classified) {
    throw new TRPCError({ code: classified.trpcCode, message: classified.message, cause: result.error.cause });
  }
  if (
    !result.ok &&
    result.error.code === "INTERNAL_SERVER_ERROR" &&
    isDatabaseUnavailable(result.error.cause ?? result.error)
  ) {
    throw new TRPCError({
      code: "SERVICE_UNAVAILABLE",
      message: DATABASE_UNAVAILABLE_MESSAGE,
      cause: result.error.cause,
    });
  }
  return result;
});

// One structured line per call, with the request id: client errors at info, server errors at error.
const logCalls = t.middleware(async ({ ctx, path, type, next }) => {
  const started = performance.now();
  const result = await next();
  const ms = Math.round((performance.now() - started) * 10) / 10;
  if (result.ok) ctx.log.debug("trpc call", { path, type, ms });
  else if (result.error.code === "INTERNAL_SERVER_ERROR")
    ctx.log.error("trpc call failed", {
      path,
      type,
      ms,
      code: result.error.code,
      error: result.error.cause ?? result.error,
    });
  else ctx.log.info("trpc call refused", { path, type, ms, code: result.error.code, message: result.error.message });
  return result;
});

const authenticated = t.middleware(async ({ ctx, next }) => {
  const user = await ctx.getUser();
  if (!user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
  return next({ ctx: { user, caller: { user, requestId: ctx.requestId } } });
});

// Text PostgreSQL cannot store (NUL, lone surrogates) is refused once, here, naming the field: otherwise it reaches
// the database and comes back as INTERNAL_SERVER_ERROR (found by the procedure fuzzer, issue #23). It runs after
// the role gate, so a caller without the role still gets FORBIDDEN.
const storableText = t.middleware(async ({ getRawInput, next }) => {
  const found = findUnstorableText(await getRawInput());
  if (found) throw invalidInput(`${found.path} ${found.problem}, which cannot be stored`, { field: found.path });
  return next();
});

export const createTrpcRouter = t.router;
export const createCallerFactory = t.createCallerFactory;
const base = t.procedure.use(logCalls).use(mapDomainErrors);
const signedIn = base.use(authenticated);
export const publicProcedure = base.use(storableText);
export const authenticatedProcedure = signedIn.use(storableText);

function gate(...allowed: Role[]) {
  return signedIn
    .use(({ ctx, next }) => {
      if (!allowed.some((role) => roleSatisfies(ctx.user.role, role))) {
        throw new TRPCError({ code: "FORBIDDEN", message: `You need the ${allowed.join(" or ")} role` });
      }
      return next();
    })
    .use(storableText);
}

export const mlEngineerProcedure = gate("ml_engineer");
export const sreProcedure = gate("sre");
export const managerProcedure = gate("manager");
export const adminProcedure = gate("admin");
/** The people who operate models: ML engineers and SREs (agents, deployments, profiles, proposals). */
export const operatorProcedure = gate("ml_engineer", "sre");
/** Who reads cost reports (issue #21): managers, and SREs who size fleets; admins set the prices. */
export const costReaderProcedure = gate("manager", "sre");
