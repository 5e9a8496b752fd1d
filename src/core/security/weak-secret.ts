// Is a configured secret a placeholder or a value anyone could guess? Start refuses those (env modules), so an
// example file copied as is (REPLACE-ME…) or a default never becomes a live admin password or signing key.
// Pure: the env modules call it; it never sees where the value came from and never returns the value.

/** Markers example files and tutorials use for "put yours here". */
const PLACEHOLDER =
  /replace[-_ .]?me|change[-_ .]?me|changeit|fill[-_ ]?me|^your[-_ ]|[-_ ]here$|<[^>]*>|\$\{[^}]*\}|todo|fixme|placeholder|insert[-_ ]/i;

/** Values shipped as defaults somewhere (ours and common ones), compared without case, separators or trailing digits. */
const KNOWN = new Set([
  "packratdemo",
  "packrat",
  "password",
  "passw0rd",
  "secret",
  "admin",
  "administrator",
  "postgres",
  "changeme",
  "letmein",
  "qwerty",
  "welcome",
  "default",
  "example",
  "test",
  "demo",
]);

export type SecretWeakness = "placeholder" | "well-known" | "repetitive";

/**
 * Why `value` must not be used as a secret, or null. `minDistinct`: the fewest different characters a real value
 * of this kind has (a 12-character password of random words has ~9; "aaaaaaaaaaaa" or "abcabcabcabc" has 1 or 3).
 */
export function secretWeakness(value: string, minDistinct = 6): SecretWeakness | null {
  if (PLACEHOLDER.test(value)) return "placeholder";
  if (/^(0123456789|1234567890|abcdefgh)/.test(value.toLowerCase())) return "repetitive";
  if (new Set(value).size < minDistinct) return "repetitive";
  const core = value
    .toLowerCase()
    .replace(/[^a-z0-9]/g, "")
    .replace(/\d+$/, "");
  if (KNOWN.has(core)) return "well-known";
  return null;
}

/** The message for a refused value: names the problem, never the value. */
export function weakSecretMessage(weakness: SecretWeakness): string {
  return weakness === "placeholder"
    ? "is still a placeholder (e.g. REPLACE-ME): set a real value"
    : weakness === "well-known"
      ? "is a well-known default value: set one nobody could guess"
      : "is too repetitive to be secret: use a random value (e.g. openssl rand -base64 32)";
}
