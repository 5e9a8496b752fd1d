import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runWatchedChild, sandboxEnv, WatchedChildLimitError } from "./run-watched-child";
import { testEnv } from "../../../test/test-env";

const dir = mkdtempSync(join(tmpdir(), "watched-child-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// A child that answers at once and exits: over before the parent's first 50 ms /proc sample, and a zombie (no
// VmHWM in its status) by the time the answer is read. Only the peak it reports itself can hold it to a limit.
const quickChild = join(dir, "quick-child.mjs");
writeFileSync(
  quickChild,
  `process.once("message", (m) => process.send({ echo: m, peakRssBytes: process.resourceUsage().maxRSS * 1024 }, () => process.exit(0)));\n`,
);

// A child whose report says 1 TiB: the parent's /proc samples see tens of MiB, so only the report can trip the limit.
const boastfulChild = join(dir, "boastful-child.mjs");
writeFileSync(
  boastfulChild,
  `process.once("message", () => process.send({ ok: true, peakRssBytes: 2 ** 40 }, () => process.exit(0)));\n`,
);

// A child that prints server internals to stderr and dies without answering, as a stack trace would.
const noisyChild = join(dir, "noisy-child.mjs");
writeFileSync(
  noisyChild,
  `process.once("message", () => { process.stderr.write("Error: connect postgres://packrat:hunter2@db.internal/packrat\\n    at /srv/packrat/.next/server/chunks/ssr.js:1:1\\n"); process.exit(3); });\n`,
);

// A child that answers with the names of its environment variables.
const envChild = join(dir, "env-child.mjs");
writeFileSync(
  envChild,
  `process.once("message", () => process.send({ names: Object.keys(process.env) }, () => process.exit(0)));\n`,
);

describe("runWatchedChild", () => {
  it("starts the child with the allowlisted environment only: none of the server's secrets", async () => {
    const secrets = {
      DATABASE_URL: "postgres://u:p@db/x",
      BETTER_AUTH_SECRET: "s".repeat(40),
      PACKRAT_ADMIN_PASSWORD: "admin-password-1",
      AGENT_TOKEN: "prat_x",
      SOME_API_KEY: "k",
    };
    const saved = Object.fromEntries(Object.keys(secrets).map((k) => [k, testEnv[k]]));
    Object.assign(testEnv, secrets, { OMP_NUM_THREADS: "1" });
    try {
      const outcome = await runWatchedChild<{ names: string[] }>(
        envChild,
        {},
        { timeoutMs: 30_000, memoryLimitBytes: 4 * 1024 ** 3 },
      );
      expect(outcome.kind).toBe("answered");
      if (outcome.kind !== "answered") return;
      for (const name of Object.keys(secrets)) expect(outcome.reply.names).not.toContain(name);
      expect(outcome.reply.names).toContain("PATH");
      expect(outcome.reply.names).toContain("OMP_NUM_THREADS");
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete testEnv[k];
        else testEnv[k] = v;
      }
      delete testEnv.OMP_NUM_THREADS;
    }
  }, 30_000);

  it("keeps only allowlisted names and prefixes", () => {
    expect(
      sandboxEnv({ PATH: "/bin", DATABASE_URL: "x", ORT_LOGGING_LEVEL: "3", PGPASSWORD: "x", HOME: "/h" }),
    ).toEqual({ PATH: "/bin", ORT_LOGGING_LEVEL: "3", HOME: "/h" });
  });

  it("describes a crash to the caller by how the child ended, keeping what it printed for the log only", async () => {
    const outcome = await runWatchedChild(noisyChild, {}, { timeoutMs: 30_000, memoryLimitBytes: 4 * 1024 ** 3 });
    expect(outcome.kind).toBe("crashed");
    if (outcome.kind !== "crashed") return;
    expect(outcome.message).toBe("the child process ended without an answer (exit 3)");
    for (const leak of ["hunter2", "db.internal", "/srv/packrat"]) expect(outcome.message).not.toContain(leak);
    expect(outcome.diagnostics).toContain("/srv/packrat/.next/server/chunks/ssr.js");
  }, 30_000);

  it("names no server path when the child script itself cannot be loaded", async () => {
    const outcome = await runWatchedChild(
      join(dir, "no-such-dir", "child.mjs"),
      {},
      { timeoutMs: 30_000, memoryLimitBytes: 4 * 1024 ** 3 },
    );
    expect(outcome.kind).toBe("crashed");
    if (outcome.kind !== "crashed") return;
    expect(outcome.message).not.toContain("no-such-dir");
    expect(outcome.diagnostics).toContain("no-such-dir");
  }, 30_000);

  it("counts the peak the child reports with its answer against the limit", async () => {
    const outcome = await runWatchedChild(boastfulChild, {}, { timeoutMs: 30_000, memoryLimitBytes: 4 * 1024 ** 3 });
    expect(outcome).toMatchObject({ kind: "killed", reason: "MEMORY_LIMIT", peakRssBytes: 2 ** 40 });
  }, 30_000);

  it("holds a child that answers within one sampling interval to the memory limit, from the peak it reports", async () => {
    // Node alone is resident well above 16 MiB (about 40 MiB), so the answer must not count.
    for (let i = 0; i < 3; i++) {
      const outcome = await runWatchedChild<{ echo: unknown }>(
        quickChild,
        { n: i },
        { timeoutMs: 30_000, memoryLimitBytes: 16 * 1024 ** 2 },
      );
      expect(outcome.kind).toBe("killed");
      if (outcome.kind === "killed") {
        expect(outcome.reason).toBe("MEMORY_LIMIT");
        expect(outcome.peakRssBytes).toBeGreaterThan(16 * 1024 ** 2);
      }
    }
  }, 60_000);

  it("returns the answer and the child's peak when it stays under the limit", async () => {
    const outcome = await runWatchedChild<{ echo: unknown }>(
      quickChild,
      { n: 7 },
      { timeoutMs: 30_000, memoryLimitBytes: 4 * 1024 ** 3 },
    );
    expect(outcome.kind).toBe("answered");
    if (outcome.kind === "answered") {
      expect(outcome.reply.echo).toEqual({ n: 7 });
      expect(outcome.peakRssBytes).toBeGreaterThan(1024 ** 2);
    }
  }, 30_000);

  it("refuses a limit that is not a positive number, naming it", () => {
    expect(() => runWatchedChild(quickChild, {}, { timeoutMs: 0, memoryLimitBytes: 1 })).toThrow(
      WatchedChildLimitError,
    );
    expect(() => runWatchedChild(quickChild, {}, { timeoutMs: 1000, memoryLimitBytes: Number.NaN })).toThrow(
      /memoryLimitBytes/,
    );
  });
});
