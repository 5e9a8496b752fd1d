// CSRF on every change, not just the one auth-handler.int.test.ts samples: each mutation procedure of the router
// (and any batch naming one), and sign-out, refuse a signed-in admin's request from another Origin, without an
// Origin, as a form or text/plain, or via GET — 403 before tRPC runs, nothing audited. The upload route has the
// same gate (model-upload-handler.int.test.ts); the agent API takes no cookies (agent-boundaries.int.test.ts).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { handleTrpcRequest } from "@/server/api/http-handler";
import { appRouter } from "@/server/api/root";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { recordSessionCookie } from "../../../test/secrets-list";
import { resetAuthForTests } from "./auth";
import { handleAuthRequest } from "./auth-handler";
import { usePasswordHasherForTests } from "./password";
import { cheapHasher, insertTestUser } from "./test-support";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3999";
let cookie = "";

const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
const mutations = Object.keys(procedures)
  .filter((p) => procedures[p]!._def.type === "mutation")
  .sort();
const queries = Object.keys(procedures)
  .filter((p) => procedures[p]!._def.type === "query")
  .sort();

beforeAll(async () => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
  const admin = await insertTestUser(db(), "admin");
  const response = await handleAuthRequest(
    new Request(`${ORIGIN}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin: ORIGIN, "content-type": "application/json", "x-forwarded-for": "192.0.2.91" },
      body: JSON.stringify({ email: admin.email, password: admin.password }),
    }),
  );
  const setCookie = response.headers.getSetCookie().find((c) => c.startsWith("packrat.session_token="))!;
  recordSessionCookie(setCookie);
  cookie = setCookie.split(";")[0]!;
});
afterAll(() => usePasswordHasherForTests(undefined));

function trpc(path: string, init: { method: string; origin?: string | null; type?: string }) {
  const headers = new Headers({ cookie });
  if (init.origin !== null) headers.set("origin", init.origin ?? ORIGIN);
  if (init.method === "POST") headers.set("content-type", init.type ?? "application/json");
  return handleTrpcRequest(
    new Request(`${ORIGIN}/api/trpc/${path}`, {
      method: init.method,
      headers,
      body: init.method === "POST" ? "{}" : undefined,
    }),
  );
}

const forged: Array<[string, { method: string; origin?: string | null; type?: string }]> = [
  ["another origin", { method: "POST", origin: "https://evil.example" }],
  ["a look-alike origin", { method: "POST", origin: `${ORIGIN}.evil.example` }],
  ["no origin", { method: "POST", origin: null }],
  ["a form post", { method: "POST", type: "application/x-www-form-urlencoded" }],
  ["text/plain", { method: "POST", type: "text/plain" }],
  ["GET", { method: "GET" }],
];

describe("CSRF on every mutation", () => {
  it("each of the router's mutations refuses a forged request with 403 and audits nothing", async () => {
    expect(mutations.length).toBeGreaterThan(0);
    const audited = await db().auditEvent.count();
    const wrong: string[] = [];
    for (const path of mutations) {
      for (const [how, init] of forged) {
        const response = await trpc(path, init);
        if (response.status !== 403) wrong.push(`${path} via ${how}: ${response.status}`);
        await response.body?.cancel();
      }
    }
    expect(wrong).toEqual([]);
    expect(await db().auditEvent.count()).toBe(audited);
  });

  it("a batch that hides a mutation among queries is refused the same way", async () => {
    const batch = `${queries[0]},${mutations[0]}?batch=1`;
    expect((await trpc(batch, { method: "GET" })).status).toBe(403);
    expect((await trpc(batch, { method: "POST", origin: "https://evil.example" })).status).toBe(403);
  });

  it("the same session's request done right gets past the check (the refusals above are about the request)", async () => {
    const response = await trpc("agentTokens.create", { method: "POST" });
    // Past the CSRF check and the gate: the empty input is what is refused now.
    expect(response.status).toBe(400);
  });

  it("sign-out from another origin is 403 and the session lives on", async () => {
    const out = await handleAuthRequest(
      new Request(`${ORIGIN}/api/auth/sign-out`, {
        method: "POST",
        headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
        body: "{}",
      }),
    );
    expect(out.status).toBe(403);
    const me = await handleTrpcRequest(new Request(`${ORIGIN}/api/trpc/users.me`, { headers: { cookie } }));
    expect(me.status).toBe(200);
  });
});
