// Who is calling: the user behind a request's session cookie, read fresh from the database on every request
// (no cookie cache), so a revoked session or a deactivated user is refused on the very next request.
import { auth, SESSION_COOKIE_PREFIX } from "./auth";
import { isRole, type Role } from "./roles";

export interface SessionUser {
  id: string;
  email: string;
  name: string;
  role: Role;
  /** Set when the caller came with a personal API token (Authorization: Bearer), not a session: the role is the token's. */
  apiToken?: { id: string; name: string };
}

/** The signed-in user, or null. Only the session cookie counts: an Authorization header is ignored. */
export async function getSessionUser(headers: Headers): Promise<SessionUser | null> {
  // No session cookie, no database round trip (probes and anonymous pages stay cheap).
  if (!headers.get("cookie")?.includes(`${SESSION_COOKIE_PREFIX}.session_token=`)) return null;
  const cookieOnly = new Headers({ cookie: headers.get("cookie")! });
  const result = await auth().api.getSession({ headers: cookieOnly });
  if (!result) return null;
  const { user } = result as { user: { id: string; email: string; name: string; role?: unknown; active?: unknown } };
  if (user.active !== true || !isRole(user.role)) return null;
  return { id: user.id, email: user.email, name: user.name, role: user.role };
}
