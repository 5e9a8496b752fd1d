// Personal API tokens against the real database and the real HTTP handlers (tRPC and the model upload): a role
// above the user's is refused at creation; the token is stored hashed and shown once; creating and revoking are
// audited; a bearer token needs no Origin but passes the role gate; revoked, expired, demoted and deactivated
// mean refused on the next request; a token cannot mint tokens.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { zooEntry } from "@/modelzoo/registry";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { handleModelUpload } from "@/server/api/model-upload-handler";
import { resetAuthForTests } from "@/server/auth/auth";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { sessionCookie } from "../../../test/session-cookie";
import { recordSecret } from "../../../test/secrets-list";
import {
  API_TOKEN_PREFIX,
  authenticateApiToken,
  createApiToken,
  hashApiToken,
  revokeApiToken,
} from "./api-tokens-service";
import { setUserActive, setUserRole } from "./users-service";
import type { ServiceCaller } from "./users-service";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3997";
let admin: ServiceCaller;
let engineer: ServiceCaller;
let manager: ServiceCaller;

const as = (user: SessionUser): ServiceCaller => ({ user, requestId: "api-token-test" });
async function mint(caller: ServiceCaller, role: SessionUser["role"], days = 1) {
  const created = await createApiToken(caller, {
    name: `t-${role}-${Math.random().toString(36).slice(2, 7)}`,
    role,
    expiresInDays: days,
  });
  recordSecret("api token", created.token);
  return created;
}

/** A tRPC call as the CLI makes it: no Origin, no cookie, the token as a bearer. */
async function trpc(
  token: string,
  path: string,
  input?: unknown,
  mutation = false,
  extra: Record<string, string> = {},
) {
  const body = JSON.stringify({ json: input });
  const response = await handleTrpcRequest(
    new Request(
      `${ORIGIN}/api/trpc/${path}${mutation ? "" : `?input=${encodeURIComponent(body)}`}`,
      mutation
        ? {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...extra },
            body,
          }
        : { method: "GET", headers: { authorization: `Bearer ${token}`, ...extra } },
    ),
  );
  const json = (await response.json()) as {
    result?: { data: { json: unknown } };
    error?: { json: { message: string; data: { code: string } } };
  };
  return { status: response.status, data: json.result?.data.json, error: json.error?.json };
}

beforeAll(async () => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
  admin = as(await insertTestUser(db(), "admin"));
  engineer = as(await insertTestUser(db(), "ml_engineer"));
  manager = as(await insertTestUser(db(), "manager"));
});
afterAll(() => resetEnvForTests());

describe("personal API tokens", () => {
  it("a role above the user's is refused; an admin may scope a token to any role", async () => {
    await expect(mint(engineer, "sre")).rejects.toThrow(
      /role above yours: you are ml_engineer, the token asks for sre/,
    );
    await expect(mint(manager, "admin")).rejects.toThrow(/role above yours/);
    for (const role of ["ml_engineer", "sre", "manager", "admin"] as const)
      expect((await mint(admin, role)).role).toBe(role);
    await expect(createApiToken(engineer, { name: "x", role: "ml_engineer", expiresInDays: 366 })).rejects.toThrow(
      /1 to 365 days/,
    );
  });

  it("is shown once and stored as its SHA-256 only; creating and revoking are audited", async () => {
    const created = await mint(engineer, "ml_engineer");
    expect(created.token.startsWith(API_TOKEN_PREFIX)).toBe(true);
    const row = await db().apiToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tokenHash).toBe(hashApiToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token.slice(API_TOKEN_PREFIX.length));
    const listed = await trpc(created.token, "apiTokens.list");
    expect(JSON.stringify(listed.data)).not.toContain(created.token.slice(API_TOKEN_PREFIX.length + 8));
    await revokeApiToken(engineer, { id: created.id });
    const events = await db().auditEvent.findMany({ where: { targetId: created.id }, orderBy: { at: "asc" } });
    expect(events.map((e) => e.action)).toEqual(["api_token.create", "api_token.revoke"]);
    expect(JSON.stringify(events.map((e) => [e.before, e.after]))).not.toContain(
      created.token.slice(API_TOKEN_PREFIX.length + 8),
    );
  });

  it("a bearer token needs no Origin for a mutation, yet the role gate holds; its actions are audited as the user via the token", async () => {
    const ml = await mint(engineer, "ml_engineer");
    const asManager = await mint(admin, "manager");
    const me = await trpc(ml.token, "users.me");
    expect(me.data).toMatchObject({ id: engineer.user.id, role: "ml_engineer", apiToken: { id: ml.id } });
    // models.setSlo is an ML engineer's: the admin's manager-scoped token is refused, the engineer's passes the gate.
    expect(
      (await trpc(asManager.token, "models.setSlo", { modelId: "none", deadlineMs: 10, quantile: 0.99 }, true)).status,
    ).toBe(403);
    expect(
      (await trpc(ml.token, "models.setSlo", { modelId: "none", deadlineMs: 10, quantile: 0.99 }, true)).status,
    ).toBe(404);
    // An Origin of another site does not matter to a token caller either (no cookie is read).
    expect(
      (
        await trpc(ml.token, "models.setSlo", { modelId: "none", deadlineMs: 10, quantile: 0.99 }, true, {
          origin: "https://evil.example",
        })
      ).status,
    ).toBe(404);
    // A session cookie without Origin is still refused: only a token is exempt.
    const user = await insertTestUser(db(), "ml_engineer");
    const cookie = await sessionCookie(ORIGIN, user.email, user.password);
    const refused = await handleTrpcRequest(
      new Request(`${ORIGIN}/api/trpc/models.setSlo`, {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(refused.status).toBe(403);
    // A token named in the header wins over a cookie: a bad token with a good cookie is anonymous.
    const both = await trpc(`${API_TOKEN_PREFIX}unknown`, "users.me", undefined, false, { cookie });
    expect(both.status).toBe(401);
    // What a token does is audited as its user, naming the token.
    const spare = await mint(engineer, "ml_engineer");
    expect((await trpc(ml.token, "apiTokens.revoke", { id: spare.id }, true)).status).toBe(200);
    const event = await db().auditEvent.findFirstOrThrow({ where: { targetId: spare.id, action: "api_token.revoke" } });
    expect(event.actorLabel).toBe(`${engineer.user.email} (API token ${ml.name})`);
  });

  it("revoked, expired, demoted or deactivated: refused on the very next request", async () => {
    const revoked = await mint(engineer, "ml_engineer");
    expect((await trpc(revoked.token, "users.me")).status).toBe(200);
    await revokeApiToken(engineer, { id: revoked.id });
    expect((await trpc(revoked.token, "users.me")).status).toBe(401);

    const expired = await mint(engineer, "ml_engineer");
    await db().apiToken.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    expect((await trpc(expired.token, "users.me")).status).toBe(401);

    const sreUser = as(await insertTestUser(db(), "sre"));
    const sreToken = await mint(sreUser, "sre");
    expect((await trpc(sreToken.token, "agentTokens.list")).status).toBe(200);
    await setUserRole(admin, { userId: sreUser.user.id, role: "manager" });
    expect(await authenticateApiToken(sreToken.token)).toBeNull();
    expect((await trpc(sreToken.token, "agentTokens.list")).status).toBe(401);

    const other = as(await insertTestUser(db(), "ml_engineer"));
    const otherToken = await mint(other, "ml_engineer");
    await setUserActive(admin, { userId: other.user.id, active: false });
    expect((await trpc(otherToken.token, "users.me")).status).toBe(401);
  });

  it("someone else's token is not yours to revoke (an admin's is); a token cannot mint tokens", async () => {
    const mine = await mint(engineer, "ml_engineer");
    await expect(revokeApiToken(manager, { id: mine.id })).rejects.toThrow(/not found/);
    const created = await trpc(
      mine.token,
      "apiTokens.create",
      { name: "child", role: "ml_engineer", expiresInDays: 365 },
      true,
    );
    expect(created.status).toBe(403);
    expect(created.error?.message).toMatch(/not with another token/);
    await revokeApiToken(admin, { id: mine.id });
    expect((await trpc(mine.token, "users.me")).status).toBe(401);
  });

  it("the upload route takes a token without Origin and holds its role gate", async () => {
    const bytes = zooEntry("tiny-cnn").build();
    const upload = (token: string) =>
      handleModelUpload(
        new Request(`${ORIGIN}/api/models/upload?name=token-upload-${Math.random().toString(36).slice(2, 7)}`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}`, "content-type": "application/octet-stream" },
          body: Buffer.from(bytes),
        }),
      );
    expect((await upload((await mint(manager, "manager")).token)).status).toBe(403);
    const revoked = await mint(engineer, "ml_engineer");
    await revokeApiToken(engineer, { id: revoked.id });
    expect((await upload(revoked.token)).status).toBe(401);
    const response = await upload((await mint(engineer, "ml_engineer")).token);
    expect(response.status).toBe(201);
  });
});
