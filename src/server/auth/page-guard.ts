// For server components: who is signed in (once per request), sign-in redirects, and the role check a page
// makes before it loads any data, so a page a role may not open renders the 403 view and nothing else.
import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { cache } from "react";
import { roleSatisfies, type Role } from "@/core/security/roles";
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

// Browsers drop tabs and newlines inside URLs and read \ as /, so "/\t/host" or "/\\host" leaves the site.
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\\]/;
const PROBE_ORIGIN = "https://next-path.invalid";

/** True when `path` can only ever mean a path on this site, as written. */
function isSameOriginPath(path: string): boolean {
  if (!path.startsWith("/") || path.startsWith("//") || UNSAFE_CHARACTERS.test(path)) return false;
  try {
    return new URL(path, PROBE_ORIGIN).origin === PROBE_ORIGIN;
  } catch {
    return false;
  }
}

/**
 * Where to go after signing in: only a path on this site (never //host, a full URL, or anything a browser turns
 * into one). Each percent-decoding of the value must pass too, so "/%09/host" or "/%2F%2Fhost" cannot become a
 * foreign URL if something on the way decodes it once more.
 */
export function safeNextPath(next: string | string[] | undefined): string {
  const value = Array.isArray(next) ? next[0] : next;
  if (!value) return "/";
  let form = value;
  for (let round = 0; round < 4; round += 1) {
    if (!isSameOriginPath(form)) return "/";
    let decoded: string;
    try {
      decoded = decodeURIComponent(form);
    } catch {
      return "/";
    }
    if (decoded === form) return value;
    form = decoded;
  }
  // Still changing after four decodings: nobody writes a path like that.
  return "/";
}
