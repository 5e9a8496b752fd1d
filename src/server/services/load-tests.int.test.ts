// Load tests end to end (issue #19): the control plane's job API over real HTTP, a real attached agent serving the
// tiny CNN that claims the job, runs the load generator against its own port and uploads the report.
// Timing constants shortened: heartbeat 300 ms, long-poll 1 s.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { insertTestUser } from "@/server/auth/test-support";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import { loadTestReportPath } from "../../../apps/agent/src/attached/load-test-job";
import {
  agentApiRoutes,
  insertModelVersion,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
  type TestAgent,
} from "../../../test/control-plane-harness";
import { createAgentToken } from "./agent-tokens-service";
import { deployModel } from "./deployments-service";
import { getLoadTest, listLoadTestsForDeployment, startLoadTest } from "./load-tests-service";
import type { ServiceCaller } from "./users-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-load-tests-"));
chmodSync(dataDir, 0o755);
let ml: ServiceCaller;
let sre: ServiceCaller;
let server: Awaited<ReturnType<typeof startRouteServer>>;
let agent: TestAgent;
let agentToken: string;
let stateDir: string;
let deploymentId: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    AGENT_LOST_TIMEOUT_MS: "20000",
    PACKRAT_DATA_DIR: dataDir,
  });
  resetEnvForTests();
  const prisma = db();
  await prisma.loadTest.deleteMany({});
  await prisma.profile.deleteMany({});
  await prisma.deployment.deleteMany({});
  await prisma.modelVersion.deleteMany({});
  await prisma.model.deleteMany({});
  ml = { user: await insertTestUser(prisma, "ml_engineer"), requestId: "load-test" };
  sre = { user: await insertTestUser(prisma, "sre"), requestId: "load-test" };
  const admin: ServiceCaller = { user: await insertTestUser(prisma, "admin"), requestId: "load-test" };
  server = await startRouteServer(await agentApiRoutes());
  const created = await createAgentToken(admin, { name: "load-tests" });
  agentToken = created.token;
  stateDir = join(dataDir, "agent");
  agent = startAgentProcess(server.url, agentToken, stateDir, await freePort());
  children.push(agent.process);
  // Agents of earlier test files registered from this same host: find ours by its token.
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: created.id } } } }),
    "registration",
  );
  const version = await insertModelVersion(
    dataDir,
    "tiny-cnn",
    buildTinyCnn({ seed: 8, producerVersion: "packrat-test" }),
  );
  deploymentId = (
    await deployModel(admin, { agentId: registered.id, modelVersionId: version.id, cpus: registered.allowedCpus })
  ).id;
  await until(
    async () => (await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentId } })).state === "serving",
    "the deployment to serve",
  );
});

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const finished = (loadTestId: string) =>
  until(
    async () => {
      const t = await getLoadTest(loadTestId);
      return t.status === "done" || t.status === "failed" ? t : undefined;
    },
    "the load test to finish",
    90_000,
  );

describe("load tests", () => {
  it("refuses to load a serving deployment without a confirmation, and nothing is queued", async () => {
    const before = await db().job.count({ where: { kind: "load_test" } });
    await expect(
      startLoadTest(ml, {
        deploymentId,
        spec: { mode: "open", pattern: "constant", ratePerS: 10, durationS: 2, binary: true, batch: 1 },
      }),
    ).rejects.toMatchObject({ code: "PRECONDITION_FAILED", details: { confirmationRequired: true } });
    expect(await db().job.count({ where: { kind: "load_test" } })).toBe(before);
  });

  it("runs 20 requests/s for 3 s on the tiny CNN: the stored result is the load generator's JSON, as the agent wrote it", async () => {
    const { loadTestId } = await startLoadTest(ml, {
      deploymentId,
      confirmServing: true,
      spec: { mode: "open", pattern: "constant", ratePerS: 20, durationS: 3, binary: true, batch: 1 },
    });
    const test = await finished(loadTestId);
    expect(test.error).toBeNull();
    expect(test.status).toBe("done");
    // The report as stored equals, value for value, the file the load generator wrote on the agent.
    const written = JSON.parse(readFileSync(loadTestReportPath(stateDir, loadTestId), "utf8"));
    expect(test.report).toEqual(written);
    expect(written.format).toBe("packrat-loadgen/1");
    expect(written.model).toBe("tiny-cnn");
    expect(written.config).toMatchObject({ binary: true, pattern: { kind: "constant", rate: 20 }, durationMs: 3000 });
    // 3 s at 20/s is 60 arrivals; the default warm-up (10% of the run, 300 ms) takes 6 of them out of the measured window.
    expect(written.open.measured.intended).toBe(54);
    const summary = test.summary!.open!;
    expect(summary.counts.intended).toBe(written.open.measured.intended);
    expect(summary.counts.ok).toBe(written.open.measured.ok);
    expect(summary.counts.ok).toBeGreaterThan(0);
    expect(summary.latency.p99Ms).toBe(written.open.latency.p99Ms);
    expect(summary.spectrum.length).toBeGreaterThan(0);
    expect(summary.timeline.length).toBe(written.open.timeline.length);
    // It ran against the deployment's generation 1, which was still serving when it ended.
    expect(test.generationAtStart).toBe(1);
    expect(test.generationAtEnd).toBe(1);
    expect(test.planAtStart).not.toBeNull();
    const audit = await db().auditEvent.findFirst({
      where: { action: "load_test.start", targetId: deploymentId },
      orderBy: { id: "desc" },
    });
    expect(audit?.after).toMatchObject({ loadTestId, confirmedServing: true });
    expect((await listLoadTestsForDeployment(deploymentId)).find((t) => t.id === loadTestId)?.status).toBe("done");
  });

  it("'max rate under the SLO' runs the ramp search: 5 → 20 requests/s by ×1.5 with a p99 limit the tiny CNN meets", async () => {
    const { loadTestId } = await startLoadTest(sre, {
      deploymentId,
      confirmServing: true,
      spec: { mode: "search", p99LimitMs: 2000, startRatePerS: 5, maxRatePerS: 20, stepS: 1, binary: false, batch: 1 },
    });
    const test = await finished(loadTestId);
    expect(test.error).toBeNull();
    const search = test.summary!.search!;
    // The ramp: 5, 7.5, 11.25, 16.875, then capped at the maximum 20; every step passes, so no bisection.
    expect(search.steps.map((s) => s.ratePerS)).toEqual([5, 7.5, 11.25, 16.875, 20]);
    expect(search.steps.every((s) => s.passed)).toBe(true);
    expect(search.maxRatePerS).toBe(20);
    expect(search.firstFailingRatePerS).toBeNull();
  });

  it("GET /jobs/next refuses a job kind it does not know", async () => {
    const response = await fetch(`${server.url}/api/agent/v1/jobs/next?kinds=profile,benchmark`, {
      headers: { authorization: `Bearer ${agentToken}` },
    });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string; allowed?: string[] } };
    expect(error.message).toMatch(/unknown job kind benchmark/);
    expect(error).toMatchObject({
      code: "unknown_job_kind",
      allowed: expect.arrayContaining(["profile", "load_test"]),
    });
  });
});
