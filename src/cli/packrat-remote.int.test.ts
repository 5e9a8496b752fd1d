// The packrat CLI drives the whole loop against a real control plane over real HTTP (the tRPC, upload and agent
// route handlers Next serves, in front of the real database) and a real agent process serving a tiny CNN:
// login → models upload → deploy → profile start/wait → optimize → propose → approve (applied by the agent) →
// plans export → propose and reject, each as its own CLI process with personal API tokens. Then the refusals: a revoked, an expired and
// an under-scoped token exit 4, and a --strict export of a pinned plan exits 6. Timings shortened: heartbeat
// 300 ms, long-poll 1 s.
import { execFile, type ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { resetAuthForTests } from "@/server/auth/auth";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { createApiToken, revokeApiToken } from "@/server/services/api-tokens-service";
import { parseProtobufText, protobufTextProblems } from "@/testing/protobuf-text";
import { TRITON_MODEL_CONFIG_PROTO } from "@/testing/triton-model-config";
import { freePort } from "../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
  type Route,
} from "../../test/control-plane-harness";
import { recordSecret } from "../../test/secrets-list";
import { REMOTE_EXIT } from "./remote-commands";
import { testEnv } from "../../test/test-env";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url)).replace(/\/$/, "");
const dataDir = mkdtempSync(join(tmpdir(), "packrat-cli-"));
chmodSync(dataDir, 0o755);
const children: ChildProcess[] = [];
let server: Awaited<ReturnType<typeof startRouteServer>>;
const tokens = { ml: "", sre: "", manager: "", revoked: "", expired: "" };
let agentId = "";
const MODEL_NAME = "tiny-cnn-cli";

async function dashboardRoutes(): Promise<Route[]> {
  const trpc = await import("@/app/api/trpc/[trpc]/route");
  const upload = await import("@/app/api/models/upload/route");
  return [
    { method: "GET", pattern: /^\/api\/trpc\/.+$/, handler: trpc.GET },
    { method: "POST", pattern: /^\/api\/trpc\/.+$/, handler: trpc.POST },
    { method: "POST", pattern: /^\/api\/models\/upload$/, handler: upload.POST },
  ];
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}
/** One CLI process, as a pipeline runs it; `as` picks the config file (one per login). */
function cli(as: string, args: string[], env: Record<string, string> = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      ["--import", "tsx", "src/cli/packrat.ts", ...args],
      {
        cwd: repoRoot,
        env: {
          ...testEnv,
          INIT_CWD: repoRoot,
          PACKRAT_CONFIG: join(dataDir, `config-${as}.json`),
          PACKRAT_URL: "",
          PACKRAT_TOKEN: "",
          ...env,
        },
        maxBuffer: 16 << 20,
      },
      (error, stdout, stderr) =>
        done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
const json = <T>(run: Run): T => {
  if (run.code !== 0) throw new Error(`CLI exited ${run.code}: ${run.stderr}`);
  return JSON.parse(run.stdout) as T;
};

async function mint(user: SessionUser, role: SessionUser["role"]) {
  const created = await createApiToken(
    { user, requestId: "cli-test" },
    { name: `cli-${role}`, role, expiresInDays: 1 },
  );
  recordSecret("api token", created.token);
  return created;
}

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    PACKRAT_DATA_DIR: dataDir,
    LOG_LEVEL: "error",
    BETTER_AUTH_SECRET: "integration-test-secret-0123456789abcdef",
  });
  resetEnvForTests();
  resetAuthForTests();
  const prisma = db();
  const engineer = await insertTestUser(prisma, "ml_engineer");
  const sre = await insertTestUser(prisma, "sre");
  const manager = await insertTestUser(prisma, "manager");
  const admin = await insertTestUser(prisma, "admin");
  tokens.ml = (await mint(engineer, "ml_engineer")).token;
  tokens.sre = (await mint(sre, "sre")).token;
  tokens.manager = (await mint(manager, "manager")).token;
  const revoked = await mint(admin, "admin");
  await revokeApiToken({ user: admin, requestId: "cli-test" }, { id: revoked.id });
  tokens.revoked = revoked.token;
  const expired = await mint(admin, "admin");
  await prisma.apiToken.update({ where: { id: expired.id }, data: { expiresAt: new Date(Date.now() - 1000) } });
  tokens.expired = expired.token;

  server = await startRouteServer([...(await dashboardRoutes()), ...(await agentApiRoutes())]);
  const agentToken = await createTestAgentToken({ user: admin, requestId: "cli-test" }, { name: "cli-agent" });
  const agent = startAgentProcess(server.url, agentToken.token, join(dataDir, "agent"), await freePort());
  children.push(agent.process);
  agentId = (
    await until(() => prisma.agent.findFirst({ where: { tokens: { some: { id: agentToken.id } } } }), "registration")
  ).id;
}, 300_000);

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const tritonSchema = TRITON_MODEL_CONFIG_PROTO;

describe("packrat CLI over the control plane", () => {
  it("drives upload → deploy → profile → optimize → propose → approve → export with role-scoped tokens", async () => {
    // login checks the token and stores URL and token in a file only its user can read.
    // The token from a file (0600), never the command line; the SRE's from PACKRAT_TOKEN.
    const tokenFile = join(dataDir, "ml-token.txt");
    writeFileSync(tokenFile, `${tokens.ml}\n`, { mode: 0o600 });
    const login = await cli("ml", ["login", "--url", server.url, "--token-file", tokenFile]);
    expect(login.code, login.stderr).toBe(0);
    expect(login.stdout).toMatch(/Logged in to .* \(token role ml_engineer\)/);
    expect(statSync(join(dataDir, "config-ml.json")).mode & 0o777).toBe(0o600);
    expect((await cli("sre", ["login", "--url", server.url], { PACKRAT_TOKEN: tokens.sre })).code).toBe(0);

    const file = join(dataDir, "tiny.onnx");
    writeFileSync(file, buildTinyCnn({ seed: 37, producerVersion: "packrat-cli-test" }));
    const upload = await cli("ml", ["models", "upload", file, "--name", MODEL_NAME, "--json"]);
    const uploaded = json<{ model: { id: string; name: string }; version: { id: string; number: number } }>(upload);
    expect(uploaded.model.name).toBe(MODEL_NAME);
    expect(upload.stderr).toMatch(/uploading .* bytes/);
    const listed = json<Array<{ name: string }>>(await cli("ml", ["models", "list", "--json"]));
    expect(listed.map((m) => m.name)).toContain(MODEL_NAME);

    // deploy is an SRE's: the ML engineer's token is refused (4), the SRE's deploys and waits for serving.
    const refusedDeploy = await cli("ml", ["deploy", "--agent", agentId, "--version", uploaded.version.id]);
    expect(refusedDeploy.code).toBe(REMOTE_EXIT.auth);
    expect(refusedDeploy.stderr).toMatch(/FORBIDDEN/);
    const deployed = await cli("sre", ["deploy", "--agent", agentId, "--version", uploaded.version.id, "--wait"]);
    expect(deployed.code, deployed.stderr).toBe(0);
    const deploymentId = deployed.stdout.trim();
    expect(deployed.stderr).toMatch(/serving/);

    const started = await cli("ml", [
      "profile",
      "start",
      "--deployment",
      deploymentId,
      "--threads",
      "1,2",
      "--batches",
      "1,2,4",
    ]);
    expect(started.code, started.stderr).toBe(0);
    const profileId = started.stdout.trim();
    const waited = await cli("ml", ["profile", "wait", profileId]);
    expect(waited.code, waited.stderr).toBe(0);
    expect(waited.stdout).toMatch(/complete/);
    expect(waited.stderr).toMatch(/profile .*: (queued|running|complete)/);

    const optimized = json<{
      kind: string;
      instances: Array<{ count: number; threads: number; batch: number }>;
      batchSize: number;
    }>(await cli("ml", ["optimize", "--deployment", deploymentId, "--profile", profileId, "--batch", "4", "--json"]));
    expect(optimized.kind).toBe("plan");
    expect(optimized.instances.reduce((s, g) => s + g.count * g.batch, 0)).toBe(4);

    const proposed = await cli("ml", [
      "propose",
      "--deployment",
      deploymentId,
      "--profile",
      profileId,
      "--batch",
      "4",
      "--reason",
      "from the CLI test",
    ]);
    expect(proposed.code, proposed.stderr).toBe(0);
    const proposalId = proposed.stdout.trim();
    // approve is an SRE's too.
    expect((await cli("ml", ["approve", proposalId])).code).toBe(REMOTE_EXIT.auth);
    const approved = await cli("sre", ["approve", proposalId, "--comment", "ok", "--wait"]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(/applied \(generation 2\)/);

    // The approved plan as a Triton config, valid by Triton's schema; the pinning it loses is a warning on stderr.
    const exported = await cli("ml", ["plans", "export", "--proposal", proposalId, "--format", "triton"]);
    expect(exported.code, exported.stderr).toBe(0);
    const config = parseProtobufText(exported.stdout) as { instance_group: Array<{ count: number; kind: string }> };
    expect(protobufTextProblems(tritonSchema, "inference.ModelConfig", config)).toEqual([]);
    expect(config.instance_group[0]!.count).toBe(optimized.instances.reduce((s, g) => s + g.count, 0));
    expect(exported.stderr).toMatch(/warning: triton: per-instance CPU lists/);
    // --strict refuses what the format cannot say (6); allowing the placement loss passes when the shape is exact.
    const strict = await cli("ml", ["plans", "export", "--proposal", proposalId, "--format", "triton", "--strict"]);
    expect(strict.code).toBe(REMOTE_EXIT.notExpressible);
    expect(strict.stderr).toMatch(/cannot express this plan exactly/);
    const out = join(dataDir, "export");
    const all = await cli("ml", ["plans", "export", "--deployment", deploymentId, "--out", out]);
    expect(all.code, all.stderr).toBe(0);
    expect(all.stdout.trim().split("\n")).toEqual([
      join(out, "triton", MODEL_NAME, "config.pbtxt"),
      join(out, "ovms", "config.json"),
      join(out, "kserve", `${MODEL_NAME}-inferenceservice.yaml`),
    ]);
    expect(readFileSync(join(out, "kserve", `${MODEL_NAME}-inferenceservice.yaml`), "utf8")).toMatch(
      /kind: InferenceService/,
    );

    // A second proposal, rejected: a rejection needs a comment (1), then it is recorded.
    const second = (
      await cli("ml", [
        "propose",
        "--deployment",
        deploymentId,
        "--profile",
        profileId,
        "--batch",
        "2",
        "--reason",
        "to be rejected",
      ])
    ).stdout.trim();
    expect((await cli("sre", ["reject", second])).code).toBe(REMOTE_EXIT.usage);
    const rejected = await cli("sre", ["reject", second, "--comment", "not now", "--json"]);
    expect(rejected.code, rejected.stderr).toBe(0);
    expect((await db().proposal.findUniqueOrThrow({ where: { id: second } })).state).toBe("rejected");
  }, 600_000);

  it("a revoked, an expired or an under-scoped token is refused with exit 4; no login is exit 4 too", async () => {
    for (const token of [tokens.revoked, tokens.expired]) {
      const login = await cli("bad", ["login", "--url", server.url, "--token", token]);
      expect(login.code).toBe(REMOTE_EXIT.auth);
      expect(login.stderr).toMatch(/UNAUTHORIZED/);
      // The environment's token is used as well: still refused.
      const listed = await cli("none", ["models", "list"], { PACKRAT_URL: server.url, PACKRAT_TOKEN: token });
      expect(listed.code).toBe(REMOTE_EXIT.auth);
    }
    const manager = await cli("none", ["profile", "start", "--deployment", "any"], {
      PACKRAT_URL: server.url,
      PACKRAT_TOKEN: tokens.manager,
    });
    expect(manager.code).toBe(REMOTE_EXIT.auth);
    expect(manager.stderr).toMatch(/FORBIDDEN/);
    expect((await cli("nobody", ["models", "list"])).code).toBe(REMOTE_EXIT.auth);
    // Bad arguments are 1, a missing object is 5.
    expect((await cli("none", ["deploy"], { PACKRAT_URL: server.url, PACKRAT_TOKEN: tokens.sre })).code).toBe(
      REMOTE_EXIT.usage,
    );
    expect(
      (
        await cli("none", ["plans", "export", "--proposal", "nope", "--format", "ovms"], {
          PACKRAT_URL: server.url,
          PACKRAT_TOKEN: tokens.ml,
        })
      ).code,
    ).toBe(REMOTE_EXIT.refused);
  }, 120_000);
});
