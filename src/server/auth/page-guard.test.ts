import { describe, expect, it, vi } from "vitest";

// page-guard imports server-only Next modules; only the pure helper is under test here.
vi.mock("server-only", () => ({}));
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
const { safeNextPath } = await import("./page-guard");

describe("safe next path after sign-in", () => {
  it("keeps a path on this site", () => {
    expect(safeNextPath("/audit?action=user.create")).toBe("/audit?action=user.create");
    expect(safeNextPath(["/admin", "/x"])).toBe("/admin");
  });
  it("replaces anything that could leave the site, or nothing, with /", () => {
    for (const next of ["//evil.example", "https://evil.example", "/\\evil.example", "javascript:alert(1)", "", undefined]) {
      expect(safeNextPath(next)).toBe("/");
    }
  });
});
