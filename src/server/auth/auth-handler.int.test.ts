// Sign-in, sessions, the CSRF check and the sign-in rate limit, through the same handlers Next serves
// (/api/auth/* and /api/trpc), against the real database.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { PEER_ADDRESS_HEADER } from "@/server/http/client-address";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { setUserActive, setUserRole } from "@/server/services/users-service";
import { resetAuthForTests } from "./auth";
import { handleAuthRequest } from "./auth-handler";
import { usePasswordHasherForTests } from "./password";
import { cheapHasher, createTestAgentToken, insertTestUser } from "./test-support";
import { recordSessionCookie } from "../../../test/secrets-list";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3999";

beforeAll(() => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
    SIGN_IN_MAX_FAILURES_PER_CLIENT: "5",
    SIGN_IN_MAX_FAILURES_PER_IP: "20",
    SIGN_IN_FAILURE_WINDOW_MS: "900000",
    SIGN_IN_ACCOUNT_SLOWDOWN_AFTER: "10",
    SIGN_IN_ACCOUNT_SLOWDOWN_MS: "30000",
    // As behind one proxy that appends the client to X-Forwarded-For: each test names its clients there.
    PACKRAT_TRUSTED_PROXY_HOPS: "1",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
});
afterAll(() => usePasswordHasherForTests(undefined));

let ipCounter = 0;
/** Each test its own client IP, so the per-IP limit of one test never spills into another. */
const freshIp = () => `198.51.100.${++ipCounter}`;

function authRequest(
  path: string,
  init: {
    body?: unknown;
    cookie?: string;
    origin?: string | null;
    type?: string;
    ip?: string;
    peer?: string;
    method?: string;
  } = {},
) {
  const headers = new Headers({
    "x-forwarded-for": init.ip ?? "203.0.113.1",
    [PEER_ADDRESS_HEADER]: init.peer ?? "10.0.0.2",
  });
  if (init.origin !== null) headers.set("origin", init.origin ?? ORIGIN);
  if (init.body !== undefined) headers.set("content-type", init.type ?? "application/json");
  if (init.cookie) headers.set("cookie", init.cookie);
  return handleAuthRequest(
    new Request(`${ORIGIN}/api/auth${path}`, {
      method: init.method ?? "POST",
      headers,
      body: init.body === undefined ? undefined : typeof init.body === "string" ? init.body : JSON.stringify(init.body),
    }),
  );
}

const signIn = (email: string, password: string, ip = freshIp()) =>
  authRequest("/sign-in/email", { body: { email, password }, ip });

async function sessionCookie(email: string, password: string): Promise<string> {
  const response = await signIn(email, password);
  expect(response.status).toBe(200);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("packrat.session_token="));
  expect(cookie).toBeDefined();
  recordSessionCookie(cookie!); // a secret the CI scan looks for (signed out or revoked later, so gone from the database)
  return cookie!.split(";")[0]!;
}

function trpc(
  path: string,
  init: {
    cookie?: string;
    input?: unknown;
    method?: "GET" | "POST";
    origin?: string | null;
    type?: string;
    authorization?: string;
  } = {},
) {
  const headers = new Headers();
  if (init.cookie) headers.set("cookie", init.cookie);
  if (init.authorization) headers.set("authorization", init.authorization);
  const method = init.method ?? "GET";
  if (method === "POST") {
    if (init.origin !== null) headers.set("origin", init.origin ?? ORIGIN);
    headers.set("content-type", init.type ?? "application/json");
    return handleTrpcRequest(
      new Request(`${ORIGIN}/api/trpc/${path}`, { method, headers, body: JSON.stringify({ json: init.input }) }),
    );
  }
  const query = init.input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: init.input }))}`;
  return handleTrpcRequest(new Request(`${ORIGIN}/api/trpc/${path}${query}`, { method, headers }));
}

const errorCode = async (response: Response) =>
  ((await response.json()) as { error?: { json?: { data?: { code?: string } } } }).error?.json?.data?.code;

describe("sign-in and sessions", () => {
  it("signs in with email and password: an httpOnly, SameSite=Lax session cookie that tRPC accepts", async () => {
    const user = await insertTestUser(db(), "sre");
    const response = await signIn(user.email.toUpperCase(), user.password);
    expect(response.status).toBe(200);
    const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("packrat.session_token="))!;
    recordSessionCookie(setCookie);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).not.toMatch(/Secure/i); // the public URL is http here
    expect(response.headers.get("x-request-id")).toBeTruthy();
    const me = await trpc("users.me", { cookie: setCookie.split(";")[0] });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ result: { data: { json: { email: user.email, role: "sre" } } } });
    const audit = await db().auditEvent.findFirst({ where: { action: "auth.sign_in", actorId: user.id } });
    expect(audit).toMatchObject({ actorType: "user", targetLabel: user.email });
  });

  it("refuses a wrong password with 401 and audits the failure, without leaking which part was wrong", async () => {
    const user = await insertTestUser(db(), "ml_engineer");
    const wrong = await signIn(user.email, "not-the-password");
    const unknown = await signIn("nobody-here@test.example", "whatever-password");
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
    const audit = await db().auditEvent.findFirst({ where: { action: "auth.sign_in_failed", targetId: user.id } });
    expect(audit).toMatchObject({
      actorType: "anonymous",
      actorLabel: user.email,
      after: { reason: "INVALID_EMAIL_OR_PASSWORD" },
    });
  });

  it("signs out: the session row is gone, the cookie no longer works, and it is audited", async () => {
    const user = await insertTestUser(db(), "manager");
    const cookie = await sessionCookie(user.email, user.password);
    const out = await authRequest("/sign-out", { body: {}, cookie });
    expect(out.status).toBe(200);
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
    expect(await errorCode(await trpc("users.me", { cookie }))).toBe("UNAUTHORIZED");
    expect(await db().auditEvent.count({ where: { action: "auth.sign_out", actorId: user.id } })).toBe(1);
  });

  it("a role change revokes the user's sessions: the next request is UNAUTHORIZED", async () => {
    const admin = await insertTestUser(db(), "admin");
    const user = await insertTestUser(db(), "sre");
    const cookie = await sessionCookie(user.email, user.password);
    expect((await trpc("agentTokens.list", { cookie })).status).toBe(200);
    await setUserRole({ user: admin, requestId: "t" }, { userId: user.id, role: "manager" });
    expect(await errorCode(await trpc("agentTokens.list", { cookie }))).toBe("UNAUTHORIZED");
    // Signing in again gives the new role: manager may not list agent tokens.
    const again = await sessionCookie(user.email, user.password);
    expect(await errorCode(await trpc("agentTokens.list", { cookie: again }))).toBe("FORBIDDEN");
  });

  it("a deactivated user's sessions end and signing in again is refused as deactivated", async () => {
    const admin = await insertTestUser(db(), "admin");
    const user = await insertTestUser(db(), "ml_engineer");
    const cookie = await sessionCookie(user.email, user.password);
    await setUserActive({ user: admin, requestId: "t" }, { userId: user.id, active: false });
    expect(await errorCode(await trpc("users.me", { cookie }))).toBe("UNAUTHORIZED");
    const response = await signIn(user.email, user.password);
    expect(response.status).toBe(403);
    expect(await response.json()).toMatchObject({ code: "ACCOUNT_DEACTIVATED" });
  });

  it("exposes only sign-in, sign-out and get-session of better-auth: sign-up and the rest are 404", async () => {
    const signUp = await authRequest("/sign-up/email", {
      body: { email: "new@test.example", password: "a-long-password", name: "x" },
    });
    expect(signUp.status).toBe(404);
    expect((await authRequest("/change-password", { body: {} })).status).toBe(404);
    expect((await authRequest("/get-session", { method: "GET" })).status).toBe(200);
  });

  it("never accepts an agent token on tRPC", async () => {
    const admin = await insertTestUser(db(), "admin");
    const { token } = await createTestAgentToken({ user: admin, requestId: "t" }, { name: "not-for-trpc" });
    expect(await errorCode(await trpc("users.me", { authorization: `Bearer ${token}` }))).toBe("UNAUTHORIZED");
  });
});

describe("changing one's own password", () => {
  it("needs the current password; ends every other session, keeps this one, and the new password signs in", async () => {
    const user = await insertTestUser(db(), "ml_engineer");
    const here = await sessionCookie(user.email, user.password);
    const elsewhere = await sessionCookie(user.email, user.password);
    const change = (currentPassword: string, newPassword: string) =>
      trpc("users.changePassword", { cookie: here, method: "POST", input: { currentPassword, newPassword } });

    const wrong = await change("not-the-password", "a-brand-new-password-1");
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(await wrong.json())).toContain("the current password is not correct");
    expect((await trpc("users.me", { cookie: elsewhere })).status).toBe(200);
    expect(await db().auditEvent.count({ where: { action: "user.password_change_refused", targetId: user.id } })).toBe(
      1,
    );

    const ok = await change(user.password, "a-brand-new-password-1");
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ result: { data: { json: { otherSessionsEnded: 1 } } } });
    expect((await trpc("users.me", { cookie: here })).status).toBe(200);
    expect(await errorCode(await trpc("users.me", { cookie: elsewhere }))).toBe("UNAUTHORIZED");
    expect((await signIn(user.email, user.password)).status).toBe(401);
    expect((await signIn(user.email, "a-brand-new-password-1")).status).toBe(200);
    const event = await db().auditEvent.findFirstOrThrow({
      where: { action: "user.password_change", targetId: user.id },
    });
    expect(event).toMatchObject({ actorId: user.id, after: { otherSessionsEnded: 1 } });
    expect(JSON.stringify([event.before, event.after])).not.toContain("a-brand-new-password-1");
  });

  it("guessing the current password is throttled as sign-in is: the 6th wrong one from a client is 429", async () => {
    const user = await insertTestUser(db(), "sre");
    const cookie = await sessionCookie(user.email, user.password);
    const change = (currentPassword: string) =>
      trpc("users.changePassword", {
        cookie,
        method: "POST",
        input: { currentPassword, newPassword: "a-brand-new-password-3" },
      });
    for (let i = 0; i < 5; i++) expect((await change(`guess-${i}`)).status).toBe(400);
    const limited = await change(user.password);
    expect(limited.status).toBe(429);
    expect(await errorCode(limited)).toBe("TOO_MANY_REQUESTS");
    expect((await signIn(user.email, user.password)).status).toBe(200); // the old password still stands
  });

  it("changes only the caller's password (there is no user id to name) and refuses a short one", async () => {
    const user = await insertTestUser(db(), "manager");
    const cookie = await sessionCookie(user.email, user.password);
    const short = await trpc("users.changePassword", {
      cookie,
      method: "POST",
      input: { currentPassword: user.password, newPassword: "short" },
    });
    expect(short.status).toBe(400);
    expect(
      await errorCode(
        await trpc("users.changePassword", {
          method: "POST",
          input: { currentPassword: "x", newPassword: "a-brand-new-password-2" },
        }),
      ),
    ).toBe("UNAUTHORIZED");
    expect((await signIn(user.email, user.password)).status).toBe(200);
  });
});

describe("sign-in throttle", () => {
  it("after 5 failed attempts from one client for one account, that client's 6th is 429 with Retry-After, even with the right password", async () => {
    const user = await insertTestUser(db(), "sre");
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, `wrong-${i}`, ip)).status).toBe(401);
    const blocked = await signIn(user.email, user.password, ip);
    expect(blocked.status).toBe(429);
    // The window is 15 min = 900 s and began with the first failure a moment ago: 1 ≤ Retry-After ≤ 900.
    const retryAfter = Number(blocked.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(900);
    expect(await blocked.json()).toMatchObject({
      code: "RATE_LIMITED",
      message: expect.stringMatching(/Too many failed sign-ins/),
    });
    // No session was created by the blocked attempt.
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
  });

  it("bad attempts never lock the account out: its owner signs in from another client (the only admin included)", async () => {
    const admin = await insertTestUser(db(), "admin");
    const attacker = freshIp();
    for (let i = 0; i < 8; i++) await signIn(admin.email, `guess-${i}`, attacker);
    expect((await signIn(admin.email, admin.password, attacker)).status).toBe(429);
    expect((await signIn(admin.email, admin.password, freshIp())).status).toBe(200);
  });

  it("guesses from many clients slow the account down (429 for seconds, not minutes) instead of locking it", async () => {
    const user = await insertTestUser(db(), "manager");
    for (let i = 0; i < 10; i++) expect((await signIn(user.email, `spread-${i}`)).status).toBe(401);
    const slowed = await signIn(user.email, user.password);
    expect(slowed.status).toBe(429);
    const retryAfter = Number(slowed.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(30);
    expect((await slowed.json()).message).toMatch(/Try again in \d+ seconds?\./);
    // The next slot comes: 30 s after the window opened (moved back here instead of waiting).
    await db().signInThrottle.update({
      where: { key: `email:${user.email}` },
      data: { windowStart: new Date(Date.now() - 31_000) },
    });
    expect((await signIn(user.email, user.password)).status).toBe(200);
  });

  it("after 20 failures from one client, that client is refused for any email; a success gives its attempt back", async () => {
    const ip = freshIp();
    const user = await insertTestUser(db(), "ml_engineer");
    expect((await signIn(user.email, user.password, ip)).status).toBe(200); // success: not counted against the IP
    for (let i = 0; i < 20; i++) expect((await signIn(`guess-${i}@test.example`, "x-password", ip)).status).toBe(401);
    const blocked = await signIn(user.email, user.password, ip);
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await signIn(user.email, user.password, freshIp())).status).toBe(200); // another IP is fine
  });

  it("a successful sign-in clears the failures", async () => {
    const user = await insertTestUser(db(), "manager");
    const ip = freshIp();
    for (let i = 0; i < 4; i++) expect((await signIn(user.email, "wrong-password", ip)).status).toBe(401);
    expect((await signIn(user.email, user.password, ip)).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await signIn(user.email, "wrong-password", ip)).status).toBe(401);
    expect((await signIn(user.email, "wrong-password", ip)).status).toBe(429);
  });

  it("without a trusted proxy X-Forwarded-For is ignored: a forged one per attempt does not escape the limit; the TCP peer counts", async () => {
    testEnv.PACKRAT_TRUSTED_PROXY_HOPS = "0";
    resetEnvForTests();
    try {
      const user = await insertTestUser(db(), "sre");
      const peer = `192.0.2.${200 + (ipCounter++ % 50)}`;
      for (let i = 0; i < 5; i++)
        expect(
          (await authRequest("/sign-in/email", { body: { email: user.email, password: "wrong" }, ip: freshIp(), peer }))
            .status,
        ).toBe(401);
      expect(
        (
          await authRequest("/sign-in/email", {
            body: { email: user.email, password: user.password },
            ip: freshIp(),
            peer,
          })
        ).status,
      ).toBe(429);
      const ok = await authRequest("/sign-in/email", {
        body: { email: user.email, password: user.password },
        ip: freshIp(),
        peer: "192.0.2.99",
      });
      expect(ok.status).toBe(200);
      recordSessionCookie(ok.headers.getSetCookie().find((c) => c.startsWith("packrat.session_token="))!);
      const event = await db().auditEvent.findFirstOrThrow({ where: { action: "auth.sign_in", actorId: user.id } });
      expect(event.after).toEqual({ ip: "192.0.2.99" });
    } finally {
      testEnv.PACKRAT_TRUSTED_PROXY_HOPS = "1";
      resetEnvForTests();
    }
  });
});

describe("CSRF: changes only as JSON POST from the dashboard's origin", () => {
  it("sign-in from another origin, without an origin, or as a form post is 403", async () => {
    const user = await insertTestUser(db(), "sre");
    const body = { email: user.email, password: user.password };
    expect((await authRequest("/sign-in/email", { body, origin: "https://evil.example" })).status).toBe(403);
    expect((await authRequest("/sign-in/email", { body, origin: null })).status).toBe(403);
    const form = await authRequest("/sign-in/email", {
      body: `email=${encodeURIComponent(user.email)}&password=${user.password}`,
      type: "application/x-www-form-urlencoded",
    });
    expect(form.status).toBe(403);
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
  });

  it("sign-in from a loopback alias of the loopback public URL (127.0.0.1, [::1]) works; another port does not", async () => {
    const user = await insertTestUser(db(), "sre");
    const body = JSON.stringify({ email: user.email, password: user.password });
    const from = (origin: string) =>
      handleAuthRequest(
        new Request(`${origin}/api/auth/sign-in/email`, {
          method: "POST",
          body,
          headers: { origin, "content-type": "application/json", "x-forwarded-for": freshIp() },
        }),
      );
    for (const origin of ["http://127.0.0.1:3999", "http://[::1]:3999"]) {
      const response = await from(origin);
      expect(response.status, origin).toBe(200);
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith("packrat.session_token="));
      expect(cookie).toBeDefined();
      recordSessionCookie(cookie!);
    }
    const otherPort = await from("http://127.0.0.1:4000");
    expect(otherPort.status).toBe(403);
    expect(JSON.stringify(await otherPort.json())).toContain("is not this dashboard's (http://localhost:3999)");
    expect(await db().session.count({ where: { userId: user.id } })).toBe(2);
  });

  it("a tRPC mutation from another origin, as a form, or via GET is 403 and changes nothing", async () => {
    const admin = await insertTestUser(db(), "admin");
    const cookie = await sessionCookie(admin.email, admin.password);
    const input = { name: "csrf-probe" };
    const before = await db().agentToken.count({ where: { name: "csrf-probe" } });
    const wrongOrigin = await trpc("agentTokens.create", {
      cookie,
      input,
      method: "POST",
      origin: "https://evil.example",
    });
    const noOrigin = await trpc("agentTokens.create", { cookie, input, method: "POST", origin: null });
    const form = await trpc("agentTokens.create", {
      cookie,
      input,
      method: "POST",
      type: "application/x-www-form-urlencoded",
    });
    const textPlain = await trpc("agentTokens.create", { cookie, input, method: "POST", type: "text/plain" });
    const viaGet = await trpc("agentTokens.create", { cookie, input, method: "GET" });
    for (const response of [wrongOrigin, noOrigin, form, textPlain, viaGet]) {
      expect(response.status).toBe(403);
      expect(await response.json()).toMatchObject({ error: { code: "FORBIDDEN" } });
    }
    expect(await db().agentToken.count({ where: { name: "csrf-probe" } })).toBe(before);
    // The same call done right goes through.
    const ok = await trpc("agentTokens.create", { cookie, input, method: "POST" });
    expect(ok.status).toBe(200);
    expect(await db().agentToken.count({ where: { name: "csrf-probe" } })).toBe(before + 1);
  });

  it("queries stay plain GETs (no Origin needed), so pages and probes can read", async () => {
    const response = await trpc("system.health");
    expect(response.status).toBe(200);
  });
});
