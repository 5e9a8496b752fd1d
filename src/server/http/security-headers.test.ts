import { describe, expect, it } from "vitest";
import {
  apiContentSecurityPolicy,
  newNonce,
  pageContentSecurityPolicy,
  staticSecurityHeaders,
} from "./security-headers";

const directives = (policy: string) =>
  new Map(policy.split("; ").map((d) => [d.split(" ")[0]!, d.split(" ").slice(1)]));

describe("security headers", () => {
  it("a page's policy: scripts only by nonce, never inline or eval in production; no framing, plugins or foreign forms", () => {
    const policy = directives(pageContentSecurityPolicy({ nonce: "abc123", https: false, development: false }));
    expect(policy.get("script-src")).toEqual(["'self'", "'nonce-abc123'", "'strict-dynamic'"]);
    expect(policy.get("style-src")).toEqual(["'self'", "'nonce-abc123'"]);
    expect(policy.get("style-src-attr")).toEqual(["'unsafe-inline'"]);
    expect(policy.get("frame-ancestors")).toEqual(["'none'"]);
    expect(policy.get("object-src")).toEqual(["'none'"]);
    expect(policy.get("form-action")).toEqual(["'self'"]);
    expect(policy.get("base-uri")).toEqual(["'self'"]);
    expect(policy.has("upgrade-insecure-requests")).toBe(false);
  });

  it("over https subresources are upgraded; next dev gets eval and unnonced styles", () => {
    expect(
      directives(pageContentSecurityPolicy({ nonce: "n", https: true, development: false })).has(
        "upgrade-insecure-requests",
      ),
    ).toBe(true);
    const dev = directives(pageContentSecurityPolicy({ nonce: "n", https: false, development: true }));
    expect(dev.get("script-src")).toContain("'unsafe-eval'");
    expect(dev.get("style-src")).toEqual(["'self'", "'unsafe-inline'"]);
  });

  it("nonces are 128 random bits, different each time", () => {
    const a = newNonce();
    expect(Buffer.from(a, "base64")).toHaveLength(16);
    expect(newNonce()).not.toBe(a);
  });

  it("every response: nosniff, a same-origin referrer, no framing; API answers run nothing", () => {
    expect(Object.fromEntries(staticSecurityHeaders.map((h) => [h.key, h.value]))).toEqual({
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
      "X-Frame-Options": "DENY",
    });
    expect(apiContentSecurityPolicy).toBe("default-src 'none'; frame-ancestors 'none'");
  });
});
