// Who is calling: the user behind a request's session cookie, read fresh from the database on every request
// (no cookie cache), so a revoked session or a deactivated user is refused on the very next request.
import { auth, SESSION_COOKIE_PREFIX } from "./auth";
import { isRole, type Role } from "@/core/security/roles";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Set when the caller came with a personal API token (Authorization: Bearer), not a session: the role is the token's. */
  apiToken?: { id: string; name: string };
}

export interface SignedInSession {
  user: SessionUser;
  /** The session's row id (not its token): what a password change keeps while it signs out every other session. */
  sessionId: string;
}

/** The signed-in user and their session, or null. Only the session cookie counts: an Authorization header is ignored. */
export async function getSession(headers: Headers): Promise<SignedInSession | null> {
  // No session cookie, no database round trip (probes and anonymous pages stay cheap).
  if (!headers.get("cookie")?.includes(`${SESSION_COOKIE_PREFIX}.session_token=`)) return null;
  const cookieOnly = new Headers({ cookie: headers.get("cookie")! });
  const result = await auth().api.getSession({ headers: cookieOnly });
  if (!result) return null;
  const { user, session } = result as {
    user: { id: string; email: string; name: string; role?: unknown; active?: unknown };
    session: { id: string };
  };
  if (user.active !== true || !isRole(user.role)) return null;
  return { user: { id: user.id, email: user.email, name: user.name, role: user.role }, sessionId: session.id };
}

/** The signed-in user, or null. */
export async function getSessionUser(headers: Headers): Promise<SessionUser | null> {
  return (await getSession(headers))?.user ?? null;
}
