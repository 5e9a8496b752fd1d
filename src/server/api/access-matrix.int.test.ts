// The access matrix, enforced: every procedure of the router is called as anonymous and as each role, with
// a deliberately empty input. Anonymous must get UNAUTHORIZED, a role outside the matrix's list FORBIDDEN
// (so the gate runs before input validation: an empty input would otherwise be BAD_REQUEST), and an allowed
// role anything else. A procedure missing from the matrix, or a matrix entry with no procedure, fails.
// Token callers too: every procedure over the HTTP handler with a personal API token of each role (mutations
// without an Origin: a token is exempt from the dashboard-origin check, never from the role gate), an admin's
// token scoped down to each role (the token's role counts, not the user's), and a revoked and an expired token.
import { TRPCError } from "@trpc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { appRouter, createCaller } from "@/server/api/root";
import { accessMatrix } from "@/server/api/access-matrix";
import { roles, type Role } from "@/core/security/roles";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { createApiToken, revokeApiToken } from "@/server/services/api-tokens-service";
import { recordSecret } from "../../../test/secrets-list";

type Outcome = "UNAUTHORIZED" | "FORBIDDEN" | "allowed";
const callers = ["anonymous", ...roles] as const;
type Caller = (typeof callers)[number];

const procedurePaths = Object.keys(appRouter._def.procedures).sort();

function expected(path: string, caller: Caller): Outcome {
  const allowed = accessMatrix[path];
  if (allowed === "public") return "allowed";
  if (caller === "anonymous") return "UNAUTHORIZED";
  return allowed?.includes(caller) ? "allowed" : "FORBIDDEN";
}

async function outcome(user: SessionUser | null, path: string): Promise<Outcome> {
  const caller = createCaller(contextFor(user)) as unknown as Record<string, unknown>;
  const procedure = path.split(".").reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], caller) as (
    input: unknown,
  ) => Promise<unknown>;
  try {
    await procedure(undefined);
    return "allowed";
  } catch (error) {
    if (error instanceof TRPCError && (error.code === "UNAUTHORIZED" || error.code === "FORBIDDEN")) return error.code;
    return "allowed"; // BAD_REQUEST for the empty input, NOT_FOUND, …: it got past the gate
  }
}

describe("access matrix", () => {
  const users = {} as Record<Role, SessionUser>;

  beforeAll(async () => {
    for (const role of roles) users[role] = await insertTestUser(db(), role);
  });

  it("lists every procedure of the router, and nothing else", () => {
    expect(procedurePaths.length).toBeGreaterThan(0);
    expect(procedurePaths.filter((p) => !(p in accessMatrix))).toEqual([]);
    expect(Object.keys(accessMatrix).filter((p) => !procedurePaths.includes(p))).toEqual([]);
  });

  it("admin is allowed wherever any role is (admin passes every gate)", () => {
    for (const [path, allowed] of Object.entries(accessMatrix)) {
      if (allowed !== "public") expect({ path, admin: allowed.includes("admin") }).toEqual({ path, admin: true });
    }
  });

  it("every procedure answers anonymous and each role exactly as the matrix says", async () => {
    const actual: Record<string, Record<Caller, Outcome>> = {};
    const wanted: Record<string, Record<Caller, Outcome>> = {};
    for (const path of procedurePaths) {
      actual[path] = {} as Record<Caller, Outcome>;
      wanted[path] = {} as Record<Caller, Outcome>;
      for (const caller of callers) {
        actual[path][caller] = await outcome(caller === "anonymous" ? null : users[caller], path);
        wanted[path][caller] = expected(path, caller);
      }
    }
    // One table-shaped diff when anything disagrees.
    expect(actual).toEqual(wanted);
  });
});

type HttpOutcome = Outcome | `status ${number}`;

async function tokenOutcome(token: string, path: string): Promise<HttpOutcome> {
  const origin = new URL(env().PACKRAT_PUBLIC_URL).origin;
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  const mutation = procedures[path]!._def.type === "mutation";
  const response = await handleTrpcRequest(
    new Request(
      `${origin}/api/trpc/${path}`,
      mutation
        ? {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: "{}",
          }
        : { method: "GET", headers: { authorization: `Bearer ${token}` } },
    ),
  );
  await response.body?.cancel();
  if (response.status === 401) return "UNAUTHORIZED";
  if (response.status === 403) return "FORBIDDEN";
  return "allowed";
}

describe("access matrix, personal API token callers over HTTP", () => {
  const tokens = {} as Record<Role, string>;
  const scoped = {} as Record<Role, string>;
  let revoked = "";
  let expired = "";

  beforeAll(async () => {
    const prisma = db();
    const admin = await insertTestUser(prisma, "admin");
    for (const role of roles) {
      const user = await insertTestUser(prisma, role);
      tokens[role] = (
        await createApiToken({ user, requestId: "matrix" }, { name: `matrix-${role}`, role, expiresInDays: 1 })
      ).token;
      scoped[role] = (
        await createApiToken(
          { user: admin, requestId: "matrix" },
          { name: `matrix-admin-as-${role}`, role, expiresInDays: 1 },
        )
      ).token;
      recordSecret("api token", tokens[role]);
      recordSecret("api token", scoped[role]);
    }
    const r = await createApiToken(
      { user: admin, requestId: "matrix" },
      { name: "matrix-revoked", role: "admin", expiresInDays: 1 },
    );
    await revokeApiToken({ user: admin, requestId: "matrix" }, { id: r.id });
    const e = await createApiToken(
      { user: admin, requestId: "matrix" },
      { name: "matrix-expired", role: "admin", expiresInDays: 1 },
    );
    await prisma.apiToken.update({ where: { id: e.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    revoked = r.token;
    expired = e.token;
    recordSecret("api token", revoked);
    recordSecret("api token", expired);
  });

  it("a token of each role, and an admin's token scoped to each role, answer exactly as the matrix says for that role", async () => {
    const actual: Record<string, Record<string, HttpOutcome>> = {};
    const wanted: Record<string, Record<string, HttpOutcome>> = {};
    for (const path of procedurePaths) {
      actual[path] = {};
      wanted[path] = {};
      for (const role of roles) {
        actual[path][role] = await tokenOutcome(tokens[role], path);
        actual[path][`admin as ${role}`] = await tokenOutcome(scoped[role], path);
        wanted[path][role] = expected(path, role);
        wanted[path][`admin as ${role}`] = expected(path, role);
      }
    }
    expect(actual).toEqual(wanted);
  });

  it("a revoked or an expired token is anonymous: UNAUTHORIZED on everything that is not public", async () => {
    const actual: Record<string, HttpOutcome[]> = {};
    const wanted: Record<string, HttpOutcome[]> = {};
    for (const path of procedurePaths) {
      actual[path] = [await tokenOutcome(revoked, path), await tokenOutcome(expired, path)];
      wanted[path] = [expected(path, "anonymous"), expected(path, "anonymous")];
    }
    expect(actual).toEqual(wanted);
  });
});
