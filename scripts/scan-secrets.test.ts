// The scanner as CI runs it, on files: a secret planted in a log or a client bundle fails the scan (exit 1) and is
// reported masked; a clean tree passes; an empty or missing list fails instead of passing for nothing.
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { recordSecret } from "../test/secrets-list";
import { runCli, scanSecrets, SECRETS_LIST_ENV } from "./scan-secrets";

let dir: string;
let list: string;
const agentToken = "prat_Lk2Jd9Qw4Ze7Rt1Yu5Io3Pa8Sd6Fg0Hj2Kl4Zx9Cv7B";
const sessionToken = "Xy7Wv5Ut3Sr1Qp9On7Ml5Kj3Ih1Gf9Ed";

function tree(bundle: string, log: string) {
  mkdirSync(join(dir, "next/static/chunks"), { recursive: true });
  writeFileSync(join(dir, "next/static/chunks/app.js"), bundle);
  writeFileSync(join(dir, "ci.log"), log);
  return [join(dir, "ci.log"), join(dir, "next/static")];
}

function cli(argv: string[], env: Record<string, string | undefined> = {}) {
  const lines: string[] = [];
  const status = runCli(argv, env, (l) => lines.push(l));
  return { status, out: lines.join("\n") };
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "scan-secrets-"));
  list = join(dir, "secrets.list");
  // Written the way the tests write it.
  recordSecret("agent token", agentToken, list);
  recordSecret("session token", sessionToken, list);
  recordSecret("password", "packrat-demo", list); // documented: never a hit
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("scan-secrets", () => {
  it("passes on a clean log and bundle, even where the demo password appears", () => {
    const paths = tree(
      'const hint="packrat-demo";function f(){return 1}',
      "[WebServer] GET /api/health 200\nsign in with packrat-demo\n",
    );
    const { status, out } = cli(["--list", list, ...paths]);
    expect(status).toBe(0);
    expect(out).toMatch(/2 secret\(s\) \(1 agent token, 1 session token\) in 2 file\(s\)/);
    expect(out).toMatch(/no secret found$/);
  });

  it("fails on a token planted in a client bundle, naming the file and line with the token masked", () => {
    const paths = tree(`var a=1;\nvar t="${agentToken}";`, "all quiet\n");
    const { status, out } = cli(paths, { [SECRETS_LIST_ENV]: list });
    expect(status).toBe(1);
    expect(out).toContain(`LEAK agent token prat… (48 characters) in ${join(dir, "next/static/chunks/app.js")}:2`);
    expect(out).not.toContain(agentToken);
  });

  it("fails on a session cookie in a server log line", () => {
    const paths = tree("x", `{"level":"info","cookie":"packrat.session_token=${sessionToken}.sig"}\n`);
    const result = scanSecrets({ listFile: list, paths });
    expect(result.hits).toEqual([{ file: paths[0], line: 1, kind: "session token", masked: "Xy7W… (32 characters)" }]);
  });

  it("fails when the list is missing or empty, or a path to scan does not exist", () => {
    const paths = tree("x", "y");
    expect(cli(paths).status).toBe(1);
    expect(cli(["--list", join(dir, "nope"), ...paths]).out).toMatch(/does not exist: no test recorded a secret/);
    writeFileSync(join(dir, "empty.list"), "");
    expect(cli(["--list", join(dir, "empty.list"), ...paths]).out).toMatch(/is empty/);
    expect(cli(["--list", list, join(dir, "missing.log")]).status).toBe(1);
  });

  it("a malformed list line is a failure, not a crash", () => {
    appendFileSync(list, "garbage\n");
    const { status, out } = cli(["--list", list, ...tree("x", "y")]);
    expect(status).toBe(1);
    expect(out).toMatch(/line 4 of the secret list is not JSON/);
  });
});
