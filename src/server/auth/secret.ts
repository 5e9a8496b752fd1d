// The secret that signs session cookies: BETTER_AUTH_SECRET when set, else one generated on first start and
// kept in PACKRAT_DATA_DIR/auth-secret (mode 0600), so sessions survive restarts. Never logged. Replicas
// that share users must share the secret: set BETTER_AUTH_SECRET for them.
import { randomBytes } from "node:crypto";
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const AUTH_SECRET_FILE = "auth-secret";

export function resolveAuthSecret(options: { secret?: string; dataDir: string }): string {
  if (options.secret) return options.secret;
  const dir = resolve(options.dataDir);
  const file = join(dir, AUTH_SECRET_FILE);
  mkdirSync(dir, { recursive: true });
  try {
    // "wx": exactly one of several processes starting together creates it; the others read it.
    writeFileSync(file, `${randomBytes(32).toString("base64url")}\n`, { mode: 0o600, flag: "wx" });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  // A file copied in with loose permissions is tightened rather than trusted as is.
  if ((statSync(file).mode & 0o077) !== 0) chmodSync(file, 0o600);
  const secret = readFileSync(file, "utf8").trim();
  if (secret.length < 32)
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it or set BETTER_AUTH_SECRET`);
  return secret;
}
