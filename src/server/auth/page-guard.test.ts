import { describe, expect, it, vi } from "vitest";

// page-guard imports server-only Next modules; only the pure helper is under test here.
vi.mock("server-only", () => ({}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
const { safeNextPath } = await import("./page-guard");

describe("safe next path after sign-in", () => {
  it("keeps a path on this site", () => {
    expect(safeNextPath("/audit?action=user.create")).toBe("/audit?action=user.create");
    expect(safeNextPath(["/admin", "/x"])).toBe("/admin");
    expect(safeNextPath("/models/resnet%2050#latency")).toBe("/models/resnet%2050#latency");
    expect(safeNextPath("/")).toBe("/");
  });
  it("replaces anything that could leave the site, or nothing, with /", () => {
    for (const next of [
      "//evil.example",
      "https://evil.example",
      "/\\evil.example",
      "javascript:alert(1)",
      "",
      undefined,
    ]) {
      expect(safeNextPath(next)).toBe("/");
    }
  });
  it("refuses the tricks browsers normalise into another host: tabs, newlines, backslashes, encodings", () => {
    const attacks = [
      "/\t/evil.example",
      "/\n/evil.example",
      "/\r/evil.example",
      "/%09/evil.example",
      "/%0a/evil.example",
      "/%0D/evil.example",
      "/%2f/evil.example",
      "/%2F%2Fevil.example",
      "/%5c/evil.example",
      "/%5Cevil.example",
      "\\\\evil.example",
      "\\/evil.example",
      "/\\/evil.example",
      "\t//evil.example",
      " //evil.example",
      "/x\u0000",
      "/\u2028//evil.example",
      "///evil.example",
      "http:/evil.example",
      "//evil.example@site",
      "%2F%2Fevil.example",
    ];
    expect(attacks.filter((next) => safeNextPath(next) !== "/")).toEqual([]);
  });
  it("a path that merely mentions a URL stays on this site", () => {
    // Parsed against any origin it is still a path there, so it is kept as written.
    expect(safeNextPath("/search?q=https://evil.example")).toBe("/search?q=https://evil.example");
  });
});
