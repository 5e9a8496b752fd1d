// The secret scanner's core: the list of secrets the tests minted (JSON lines written by test/secrets-list.ts) and
// a matcher that finds any of thousands of them in megabytes of text in one pass. A rolling hash over the first
// MIN_SECRET_LENGTH characters picks candidate positions; a candidate is a hit only when the whole secret is there.

/** Documented in the README for the demo users, so it is not a secret and never counts as a hit. */
export const DOCUMENTED_DEMO_PASSWORD = "packrat-demo";
/** Shorter values would match by chance (and no secret we mint is this short). */
export const MIN_SECRET_LENGTH = 8;

export interface Secret {
  kind: string;
  value: string;
}
export interface SecretHit {
  kind: string;
  masked: string;
  index: number;
}

export class SecretListError extends Error {
  readonly code = "SECRET_LIST_INVALID";
  constructor(
    readonly parameter: string,
    message: string,
  ) {
    super(message);
    this.name = "SecretListError";
  }
}

/** Parses the list: one `{"kind","value"}` per line; duplicates and the demo password dropped. Throws on a bad line. */
export function parseSecretList(text: string): Secret[] {
  const seen = new Set<string>();
  const secrets: Secret[] = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (!line) continue;
    let entry: unknown;
    try {
      entry = JSON.parse(line);
    } catch {
      throw new SecretListError("list", `line ${i + 1} of the secret list is not JSON`);
    }
    const { kind, value } = (entry ?? {}) as { kind?: unknown; value?: unknown };
    if (typeof kind !== "string" || typeof value !== "string")
      throw new SecretListError("list", `line ${i + 1} of the secret list needs string "kind" and "value"`);
    if (value === DOCUMENTED_DEMO_PASSWORD || seen.has(value)) continue;
    if (value.length < MIN_SECRET_LENGTH)
      throw new SecretListError(
        "list",
        `line ${i + 1}: a ${kind} of ${value.length} characters is too short to scan for (minimum ${MIN_SECRET_LENGTH})`,
      );
    seen.add(value);
    secrets.push({ kind, value });
  }
  return secrets;
}

/** Enough to tell which secret leaked without printing it: its kind, first 4 characters and length. */
export function maskSecret(value: string): string {
  return `${value.slice(0, 4)}… (${value.length} characters)`;
}

const BASE = 257;

function windowHash(text: string, start: number): number {
  let h = 0;
  for (let i = start; i < start + MIN_SECRET_LENGTH; i++) h = (Math.imul(h, BASE) + text.charCodeAt(i)) | 0;
  return h;
}

export class SecretMatcher {
  private readonly byHash = new Map<number, Array<{ secret: Secret; needle: string }>>();
  // BASE^(K-1) mod 2^32: the weight of the character leaving the window.
  private readonly outWeight: number;

  constructor(secrets: readonly Secret[]) {
    let w = 1;
    for (let i = 1; i < MIN_SECRET_LENGTH; i++) w = Math.imul(w, BASE);
    this.outWeight = w;
    for (const secret of secrets) {
      if (secret.value.length < MIN_SECRET_LENGTH)
        throw new SecretListError(
          "secrets",
          `a ${secret.kind} shorter than ${MIN_SECRET_LENGTH} characters cannot be scanned for`,
        );
      // The value itself, and as it appears in a URL or a cookie header when it has characters that get escaped.
      for (const needle of new Set([secret.value, encodeURIComponent(secret.value)])) {
        const h = windowHash(needle, 0);
        const bucket = this.byHash.get(h) ?? [];
        bucket.push({ secret, needle });
        this.byHash.set(h, bucket);
      }
    }
  }

  get size(): number {
    return this.byHash.size;
  }

  /** Every occurrence of every secret in `text` (one hit per secret and position). */
  find(text: string): SecretHit[] {
    const hits: SecretHit[] = [];
    if (this.byHash.size === 0 || text.length < MIN_SECRET_LENGTH) return hits;
    let h = windowHash(text, 0);
    for (let i = 0; ; i++) {
      const bucket = this.byHash.get(h);
      if (bucket) {
        for (const { secret, needle } of bucket) {
          if (text.startsWith(needle, i)) hits.push({ kind: secret.kind, masked: maskSecret(secret.value), index: i });
        }
      }
      const next = i + MIN_SECRET_LENGTH;
      if (next >= text.length) break;
      h = (Math.imul(h - Math.imul(text.charCodeAt(i), this.outWeight), BASE) + text.charCodeAt(next)) | 0;
    }
    return hits;
  }
}

/** 1-based line of `index` in `text`, for a hit's report. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < index; i = text.indexOf("\n", i + 1)) line++;
  return line;
}
