// For server components: who is signed in (once per request), sign-in redirects, and the role check a page
// makes before it loads any data, so a page a role may not open renders the 403 view and nothing else.
import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { roleSatisfies, type Role } from "./roles";
import { getSessionUser, type SessionUser } from "./session";

export const currentUser = cache(async (): Promise<SessionUser | null> => getSessionUser(new Headers(await headers())));

/** The signed-in user; anonymous visitors go to the sign-in page and come back to `path` afterwards. */
export async function requireUser(path: string): Promise<SessionUser> {
  const user = await currentUser();
  if (!user) redirect(`/sign-in?next=${encodeURIComponent(path)}`);
  return user;
}

/** The signed-in user and whether their role passes the page's gate (admin passes every gate). */
export async function requirePageRole(path: string, role: Role): Promise<{ user: SessionUser; allowed: boolean }> {
  const user = await requireUser(path);
  return { user, allowed: roleSatisfies(user.role, role) };
}

/** Where to go after signing in: only a path on this site (never //host or a full URL). */
export function safeNextPath(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  return value && value.startsWith("/") && !value.startsWith("//") && !value.startsWith("/\\") ? value : "/";
}
