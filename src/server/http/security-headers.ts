// The browser-facing security headers. Pages get a Content-Security-Policy with a fresh nonce per request (set by
// src/proxy.ts, which Next reads to put the nonce on its own scripts); every response gets the static ones
// (next.config.ts). No imports: next.config.ts loads this file too.

/** Headers on every response, pages and API alike. */
export const staticSecurityHeaders: ReadonlyArray<{ key: string; value: string }> = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  // Links to other sites carry no path (deployment ids, model names) of this dashboard.
  { key: "Referrer-Policy", value: "same-origin" },
  // For browsers without CSP frame-ancestors.
  { key: "X-Frame-Options", value: "DENY" },
];

/** API answers are JSON or files, never documents: nothing in them may run or be framed. */
export const apiContentSecurityPolicy = "default-src 'none'; frame-ancestors 'none'";

/** A nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * A page's policy. Scripts: only those carrying this response's nonce (Next puts it on its own), and what they load
 * ('strict-dynamic'). Style elements need the nonce too; style attributes are allowed (React renders `style={…}` as
 * attributes on the server, and chart libraries set them), which cannot run code. Over https, HSTS's companion:
 * subresources are upgraded. Development (`next dev`) needs eval for React's debugging and injects styles unnonced.
 */
export function pageContentSecurityPolicy(options: { nonce: string; https: boolean; development: boolean }): string {
  const { nonce, https, development } = options;
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    development ? "style-src 'self' 'unsafe-inline'" : `style-src 'self' 'nonce-${nonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' blob: data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ["upgrade-insecure-requests"] : []),
  ].join("; ");
}

/** HSTS, only when the dashboard is served over https (a browser ignores it over http, and localhost must stay reachable). */
export const strictTransportSecurity = "max-age=31536000; includeSubDomains";
