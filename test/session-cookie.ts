// A signed-in user's session cookie, minted through the real sign-in handler (better-auth): the cookie a browser
// would send. Recorded as a secret the CI scan looks for. Only for tests.
import { handleAuthRequest } from "@/server/auth/auth-handler";
import { recordSessionCookie } from "./secrets-list";

/** `origin`: the dashboard's public origin (PACKRAT_PUBLIC_URL); sign-in is refused from any other. */
export async function sessionCookie(origin: string, email: string, password: string): Promise<string> {
  const response = await handleAuthRequest(
    new Request(`${origin}/api/auth/sign-in/email`, {
      method: "POST",
      headers: { origin, "content-type": "application/json", "x-forwarded-for": "192.0.2.7" },
      body: JSON.stringify({ email, password }),
    }),
  );
  if (response.status !== 200)
    throw new Error(`sign-in as ${email} answered ${response.status}: ${await response.text()}`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith("packrat.session_token="));
  if (!cookie) throw new Error(`sign-in as ${email} set no session cookie`);
  recordSessionCookie(cookie);
  return cookie.split(";")[0]!;
}
