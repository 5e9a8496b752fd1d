// Behind https (PACKRAT_PUBLIC_URL https://…), the session cookie is Secure (and __Secure- prefixed), and the
// session helper still finds it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { resetAuthForTests } from "./auth";
import { handleAuthRequest } from "./auth-handler";
import { usePasswordHasherForTests } from "./password";
import { getSessionUser } from "./session";
import { cheapHasher, insertTestUser } from "./test-support";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "https://packrat.example";

beforeAll(() => {
  Object.assign(testEnv, {
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
    LOG_LEVEL: "error",
  });
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
});
afterAll(() => {
  delete testEnv.PACKRAT_PUBLIC_URL;
  resetEnvForTests();
  resetAuthForTests();
  usePasswordHasherForTests(undefined);
});

describe("session cookie behind https", () => {
  it("is HttpOnly, SameSite=Lax and Secure, and identifies the user", async () => {
    const user = await insertTestUser(db(), "sre");
    const response = await handleAuthRequest(
      new Request(`${ORIGIN}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: ORIGIN, "x-forwarded-for": "192.0.2.200" },
        body: JSON.stringify({ email: user.email, password: user.password }),
      }),
    );
    expect(response.status).toBe(200);
    const setCookie = response.headers.getSetCookie().find((c) => c.includes("packrat.session_token="))!;
    expect(setCookie).toMatch(/^__Secure-packrat\.session_token=/);
    expect(setCookie).toMatch(/; Secure/i);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const session = await getSessionUser(new Headers({ cookie: setCookie.split(";")[0]! }));
    expect(session).toMatchObject({ id: user.id, role: "sre" });
  });
});
