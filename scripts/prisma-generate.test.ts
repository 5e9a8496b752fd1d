// The `--if-stale` decision of scripts/prisma-generate.mjs, run as npm runs it, in a scratch directory that has a
// schema but no Prisma CLI: skipping exits 0 at once; deciding to generate fails there (no node_modules/prisma), so
// the exit status tells the two apart without touching this checkout's client.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const script = resolve("scripts/prisma-generate.mjs");
const schema = 'generator client {\n  provider = "prisma-client"\n}\n';
const dirs: string[] = [];

function scratch(stamp?: string): string {
  const dir = mkdtempSync(join(tmpdir(), "packrat-generate-"));
  dirs.push(dir);
  mkdirSync(join(dir, "prisma"));
  writeFileSync(join(dir, "prisma/schema.prisma"), schema);
  if (stamp !== undefined) {
    mkdirSync(join(dir, "src/generated/prisma"), { recursive: true });
    writeFileSync(join(dir, "src/generated/prisma/.schema-sha256"), stamp);
  }
  return dir;
}
const run = (dir: string, ...args: string[]) =>
  spawnSync(process.execPath, [script, ...args], { cwd: dir, encoding: "utf8" });
const sha = (text: string) => createHash("sha256").update(text).digest("hex");

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("prisma-generate --if-stale", () => {
  it("skips when the client was generated from this very schema", () => {
    expect(run(scratch(`${sha(schema)}\n`), "--if-stale").status).toBe(0);
  });

  it("generates when the schema changed since, or when no client records its schema", () => {
    expect(run(scratch(`${sha("an older schema")}\n`), "--if-stale").status).not.toBe(0);
    expect(run(scratch(), "--if-stale").status).not.toBe(0);
  });

  it("always generates without the flag (postinstall)", () => {
    expect(run(scratch(`${sha(schema)}\n`)).status).not.toBe(0);
  });
});
