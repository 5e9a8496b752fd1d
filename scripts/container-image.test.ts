// The image, checked from its sources (no Docker engine needed): what enters the build context, and what the final
// stage holds and may write. The final image has production dependencies only, its code is root's and read-only to
// the user it runs as, and .env files never reach it.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { load } from "js-yaml";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "..");

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  name: string | undefined;
  from: string;
  instructions: Instruction[];
}

/** The Dockerfile as stages of instructions (comments dropped, continuation lines joined). */
function dockerfileStages(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const stages: Stage[] = [];
  for (const line of lines) {
    const [, op = "", args = ""] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === "FROM") {
      const m = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from: m[1]!, name: m[2], instructions: [] });
    } else if (stages.length) {
      stages.at(-1)!.instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

/** Whether .dockerignore's patterns leave `path` out of the build context (last match wins; `!` re-includes). */
function ignored(patterns: string[], path: string): boolean {
  let out = false;
  for (const raw of patterns) {
    const negate = raw.startsWith("!");
    const pattern = (negate ? raw.slice(1) : raw).replace(/^\/+/, "").replace(/\/+$/, "");
    const regex = new RegExp(
      `^${pattern
        .split("**")
        .map((part) =>
          part
            .replace(/[.+^${}()|[\]\\]/g, "\\$&")
            .replace(/\*/g, "[^/]*")
            .replace(/\?/g, "[^/]"),
        )
        .join(".*")}(/.*)?$`,
    );
    if (regex.test(path)) out = !negate;
  }
  return out;
}

const stages = dockerfileStages(readFileSync(join(root, "Dockerfile"), "utf8"));
const final = stages.at(-1)!;
const ignorePatterns = readFileSync(join(root, ".dockerignore"), "utf8")
  .split("\n")
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith("#"));

describe(".dockerignore", () => {
  it("keeps secrets, local state and build output out of the build context", () => {
    for (const path of [
      ".env",
      ".env.local",
      ".env.production",
      "node_modules",
      ".next",
      ".data",
      ".git",
      "test-results",
      "server.key",
      ".npmrc",
    ]) {
      expect(ignored(ignorePatterns, path), path).toBe(true);
    }
  });
  it("keeps the sources the build needs", () => {
    for (const path of [
      "src/server/env.ts",
      "package.json",
      "package-lock.json",
      "prisma/schema.prisma",
      "public",
      ".env.example",
    ]) {
      expect(ignored(ignorePatterns, path), path).toBe(false);
    }
  });
});

describe("Dockerfile: the final stage", () => {
  const copies = final.instructions.filter((i) => i.op === "COPY");

  it("runs as a fixed non-root uid", () => {
    const user = final.instructions.filter((i) => i.op === "USER").at(-1)?.args;
    expect(user).toMatch(/^[1-9]\d*(:\d+)?$/);
  });

  it("holds production dependencies only: node_modules from a stage that ran `npm ci --omit=dev`, and no install of its own", () => {
    const modules = copies.filter((c) => /\/node_modules\b/.test(c.args));
    expect(modules).toHaveLength(1);
    const from = /--from=(\S+)/.exec(modules[0]!.args)?.[1];
    const source = stages.find((s) => s.name === from);
    expect(source?.instructions.some((i) => i.op === "RUN" && /npm ci\b.*--omit=dev/.test(i.args))).toBe(true);
    expect(final.instructions.some((i) => i.op === "RUN" && /\bnpm (ci|install|i)\b/.test(i.args))).toBe(false);
  });

  it("copies its code as root's (no --chown), never the build context or a whole stage", () => {
    expect(copies.filter((c) => /--chown/.test(c.args)).map((c) => c.args)).toEqual([]);
    expect(copies.filter((c) => !/--from=/.test(c.args)).map((c) => c.args)).toEqual([]);
    const sources = (c: Instruction) =>
      c.args
        .split(/\s+/)
        .filter((t) => !t.startsWith("--"))
        .slice(0, -1);
    expect(
      copies.filter((c) => sources(c).some((src) => src === "/app" || src === "/app/")).map((c) => c.args),
    ).toEqual([]);
  });

  it("hands its user only the places it writes: /data and Next's cache", () => {
    const chowned = final.instructions
      .filter((i) => i.op === "RUN")
      .flatMap((i) =>
        [...i.args.matchAll(/chown\s+(?:-R\s+)?\S+\s+([^&;]+)/g)].flatMap((m) => m[1]!.trim().split(/\s+/)),
      );
    expect(chowned.sort()).toEqual(["/app/.next/cache", "/data"]);
  });
});

describe("docker-compose.yml", () => {
  it("runs the control plane and the agent on a read-only root filesystem with tmpfs where they write", () => {
    const compose = load(readFileSync(join(root, "docker-compose.yml"), "utf8")) as {
      services: Record<string, { read_only?: boolean; tmpfs?: string[] }>;
    };
    for (const name of ["control-plane", "agent"]) {
      expect(compose.services[name]?.read_only, name).toBe(true);
      expect(
        compose.services[name]?.tmpfs?.some((t) => t.startsWith("/tmp")),
        name,
      ).toBe(true);
    }
  });
});
