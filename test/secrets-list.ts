// Tests call recordSecret whenever they mint a secret (an agent or enrollment token, a session, a password or
// its hash): it is appended to the list named by PACKRAT_SECRETS_LIST (set by .ci/run and scripts/test.ts), and
// after the runners scripts/scan-secrets.ts fails CI if any of them shows up in the CI log, a server log or a
// client bundle. Without the variable nothing is written. Only for tests.
import { appendFileSync } from "node:fs";
import { MIN_SECRET_LENGTH } from "../scripts/lib/secret-scan";
import { testEnv } from "./test-env";

export const SECRETS_LIST_ENV = "PACKRAT_SECRETS_LIST";

export type SecretKind =
  | "agent token"
  | "api token"
  | "enrollment token"
  | "session token"
  | "session cookie"
  | "password"
  | "password hash"
  | "admin password"
  | "inference token"
  | "auth secret"
  | "database password";

/**
 * Appends `value` to the secret list (one JSON line; 0600). A no-op when no list is configured, and for values
 * too short to scan for without false alarms (a test's deliberately short password, refused anyway).
 */
export function recordSecret(kind: SecretKind, value: string, file = testEnv[SECRETS_LIST_ENV]): void {
  if (!file || value.length < MIN_SECRET_LENGTH) return;
  appendFileSync(file, `${JSON.stringify({ kind, value })}\n`, { mode: 0o600 });
}

/** A Set-Cookie or Cookie header's session value: the token (before the signature's dot) and the whole value. */
export function recordSessionCookie(cookie: string, file = testEnv[SECRETS_LIST_ENV]): void {
  const value = /session_token=([^;]+)/.exec(cookie)?.[1];
  if (!value) return;
  const decoded = decodeURIComponent(value);
  recordSecret("session token", decoded.split(".")[0]!, file);
  recordSecret("session cookie", decoded, file);
}
