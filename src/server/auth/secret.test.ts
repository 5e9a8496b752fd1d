import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { AUTH_SECRET_FILE, resolveAuthSecret } from "./secret";

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "packrat-secret-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("auth secret", () => {
  it("uses BETTER_AUTH_SECRET when set and writes nothing", () => {
    const dir = tempDir();
    expect(resolveAuthSecret({ secret: "s".repeat(40), dataDir: dir })).toBe("s".repeat(40));
    expect(() => statSync(join(dir, AUTH_SECRET_FILE))).toThrow();
  });

  it("generates one into the data dir with mode 0600 and returns the same one next time", () => {
    const dir = join(tempDir(), "nested", "data");
    const first = resolveAuthSecret({ dataDir: dir });
    // 32 random bytes in base64url = 43 characters.
    expect(first).toMatch(/^[\w-]{43}$/);
    expect(statSync(join(dir, AUTH_SECRET_FILE)).mode & 0o777).toBe(0o600);
    expect(resolveAuthSecret({ dataDir: dir })).toBe(first);
    expect(readFileSync(join(dir, AUTH_SECRET_FILE), "utf8").trim()).toBe(first);
  });

  it("tightens a secret file readable by others, and refuses a short one", () => {
    const dir = tempDir();
    writeFileSync(join(dir, AUTH_SECRET_FILE), "x".repeat(40));
    chmodSync(join(dir, AUTH_SECRET_FILE), 0o644);
    expect(resolveAuthSecret({ dataDir: dir })).toBe("x".repeat(40));
    expect(statSync(join(dir, AUTH_SECRET_FILE)).mode & 0o777).toBe(0o600);
    writeFileSync(join(dir, AUTH_SECRET_FILE), "short");
    expect(() => resolveAuthSecret({ dataDir: dir })).toThrow(/shorter than 32/);
  });
});
