import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configPath, readConfig, writeConfig } from "./control-plane-client";
import { isRemoteCommand, REMOTE_EXIT, runRemote } from "./remote-commands";

const dir = mkdtempSync(join(tmpdir(), "packrat-cli-unit-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function run(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const code = await runRemote(argv, {
    env: { PACKRAT_CONFIG: join(dir, "none.json"), ...env },
    cwd: dir,
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}

describe("which commands go to the control plane", () => {
  it("optimize on a CSV stays offline; optimize --deployment and every other command are remote", () => {
    expect(isRemoteCommand(["optimize", "--profile", "p.csv", "--cores", "4", "--batch", "4"])).toBe(false);
    expect(isRemoteCommand(["optimize", "--deployment", "d", "--profile", "p", "--batch", "4"])).toBe(true);
    expect(isRemoteCommand(["optimize", "--deployment=d"])).toBe(true);
    for (const c of [
      "login",
      "models",
      "deploy",
      "profile",
      "propose",
      "approve",
      "reject",
      "plans",
      "whoami",
      "agents",
    ])
      expect(isRemoteCommand([c])).toBe(true);
    expect(isRemoteCommand(["plan"])).toBe(false);
  });
});

describe("arguments and exit codes before any request", () => {
  it.each([
    [["login", "--url", "not a url", "--token", "t"], /--url: not a URL/],
    [["models", "frobnicate"], /models: expected list, upload or import/],
    [["profile", "start", "--deployment", "d", "--threads", "1,two"], /--threads: expected integers/],
    [["plans", "export", "--proposal", "p", "--deployment", "d"], /one of --proposal ID or --deployment ID/],
    [["plans", "export", "--proposal", "p", "--format", "torchserve"], /--format: triton, ovms or kserve/],
    [["plans", "export", "--proposal", "p", "--format", "triton", "--strict", "--allow", "colour"], /--allow: colour/],
    [["deploy", "--version", "v"], /missing --agent/],
    [["approve", "--frob"], /Unknown option '--frob'/],
  ])("%j exits 1", async (argv, message) => {
    const { code, stderr } = await run(argv, { PACKRAT_URL: "http://127.0.0.1:9", PACKRAT_TOKEN: "prpat_x" });
    expect(stderr).toMatch(message);
    expect(code).toBe(REMOTE_EXIT.usage);
  });

  it("login without a token (no --token-file, no PACKRAT_TOKEN) exits 1, naming both ways", async () => {
    const { code, stderr } = await run(["login", "--url", "http://x"], { PACKRAT_URL: "", PACKRAT_TOKEN: "" });
    expect(stderr).toMatch(/missing token: --token-file FILE or PACKRAT_TOKEN/);
    expect(code).toBe(REMOTE_EXIT.usage);
  });

  it("not logged in is exit 4, saying how to log in", async () => {
    const { code, stderr } = await run(["models", "list"]);
    expect(code).toBe(REMOTE_EXIT.auth);
    expect(stderr).toMatch(/not logged in: run packrat login/);
  });

  it("an unreachable control plane is exit 8", async () => {
    const { code, stderr } = await run(["whoami"], { PACKRAT_URL: "http://127.0.0.1:9", PACKRAT_TOKEN: "prpat_x" });
    expect(code).toBe(REMOTE_EXIT.unavailable);
    expect(stderr).toMatch(/cannot reach http:\/\/127\.0\.0\.1:9/);
  });

  it("a model file that cannot be read is exit 2", async () => {
    const { code, stderr } = await run(["models", "upload", "missing.onnx", "--name", "m"], {
      PACKRAT_URL: "http://127.0.0.1:9",
      PACKRAT_TOKEN: "prpat_x",
    });
    expect(code).toBe(REMOTE_EXIT.badFile);
    expect(stderr).toMatch(/cannot read missing\.onnx/);
  });
});

describe("the config file", () => {
  it("is written 0600 (also over an existing, wider file); the environment overrides it", () => {
    const env = { PACKRAT_CONFIG: join(dir, "sub", "config.json") };
    writeFileSync(join(dir, "wide.json"), "{}", { mode: 0o644 });
    expect(statSync(join(dir, "wide.json")).mode & 0o777).toBe(0o644);
    writeConfig({ PACKRAT_CONFIG: join(dir, "wide.json") }, { url: "http://a", token: "prpat_a" });
    expect(statSync(join(dir, "wide.json")).mode & 0o777).toBe(0o600);
    const path = writeConfig(env, { url: "http://a/", token: "prpat_a" });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, "utf8"))).toEqual({ url: "http://a/", token: "prpat_a" });
    expect(readConfig(env)).toEqual({ url: "http://a", token: "prpat_a" });
    expect(readConfig({ ...env, PACKRAT_TOKEN: "prpat_b" })).toEqual({ url: "http://a", token: "prpat_b" });
    expect(configPath({ HOME: "/home/u" })).toBe("/home/u/.config/packrat/config.json");
    expect(configPath({ HOME: "/home/u", XDG_CONFIG_HOME: "/x" })).toBe("/x/packrat/config.json");
  });
});
