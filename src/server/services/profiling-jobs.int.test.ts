// Profiling jobs end to end: the control plane's job API, a real agent that claims, measures and posts cells.
// Timing constants shortened: heartbeat 300 ms, long-poll 1 s, agent-lost 2 s.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LatencyHistogram } from "@/core/stats/histogram";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  insertModelVersion,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
  type TestAgent,
} from "../../../test/control-plane-harness";
import { deployModel } from "./deployments-service";
import { cancelProfileJob, createProfileJob } from "./profiling-service";
import { finishProfileJob } from "./profile-runs-service";
import type { ServiceCaller } from "./users-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-profiling-"));
chmodSync(dataDir, 0o755);
let caller: ServiceCaller;
let server: Awaited<ReturnType<typeof startRouteServer>>;
let agent: TestAgent;
let agentToken: string;
let stateDir: string;
let agentPort: number;
let deploymentId: string;
let agentId: string;
const children: ChildProcess[] = [];

const launch = () => {
  agent = startAgentProcess(server.url, agentToken, stateDir, agentPort);
  children.push(agent.process);
};

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    AGENT_LOST_TIMEOUT_MS: "2000",
    PACKRAT_DATA_DIR: dataDir,
  });
  resetEnvForTests();
  const prisma = db();
  await prisma.profile.deleteMany({});
  await prisma.deployment.deleteMany({});
  await prisma.modelVersion.deleteMany({});
  await prisma.model.deleteMany({});
  caller = { user: await insertTestUser(prisma, "ml_engineer"), requestId: "profiling-test" };
  const admin: ServiceCaller = { user: await insertTestUser(prisma, "admin"), requestId: "profiling-test" };
  server = await startRouteServer(await agentApiRoutes());
  const created = await createTestAgentToken(admin, { name: "profiling" });
  agentToken = created.token;
  stateDir = join(dataDir, "agent");
  agentPort = await freePort();
  launch();
  // This token's agent: other test files leave agents of their own in the shared database.
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: created.id } } } }),
    "registration",
  );
  agentId = registered.id;
  const version = await insertModelVersion(
    dataDir,
    "tiny-cnn",
    buildTinyCnn({ seed: 8, producerVersion: "packrat-test" }),
  );
  deploymentId = (await deployModel(admin, { agentId, modelVersionId: version.id, cpus: registered.allowedCpus })).id;
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

// The paper rule (10 + 100 iterations) up to b = 1024: the tiny CNN's b = 1024 cells take about a second each
// even on a fast, quiet machine, so a job is still running when a test cancels or kills it. Cells are measured in
// interleaved rounds: under the paper rule every cell ends in the 10th round, one thread count's cells while the
// other's last round (b = 1024 included) still runs.
const SLOW_BATCHES = [1, 2, 4, 8, 16, 1024];
const RESUME_BATCHES = [1, 2, 4, 256];
const running = (profileId: string) =>
  until(async () => (await jobOf(profileId)).state === "running", "the agent to claim the job");

const jobOf = async (profileId: string) => {
  const profile = await db().profile.findUniqueOrThrow({ where: { id: profileId } });
  return db().job.findUniqueOrThrow({ where: { id: profile.jobId! } });
};

describe("profiling jobs", () => {
  it("sweeps t ∈ {1,2} × b ∈ {1,2,4,8}: 8 cells, each stored with the histogram of its own iterations", async () => {
    const { profileId } = await createProfileJob(caller, { deploymentId, threads: [1, 2], batches: [1, 2, 4, 8] });
    const job = await until(
      async () => {
        const j = await jobOf(profileId);
        return j.state === "done" || j.state === "failed" ? j : undefined;
      },
      "the job to finish",
      120_000,
    );
    expect(job.state).toBe("done");
    expect(job.progress).toBe(1);
    const cells = await db().profileCell.findMany({
      where: { profileId },
      orderBy: [{ threads: "asc" }, { batch: "asc" }],
    });
    expect(cells.map((c) => `${c.threads}x${c.batch}`)).toEqual([
      "1x1",
      "1x2",
      "1x4",
      "1x8",
      "2x1",
      "2x2",
      "2x4",
      "2x8",
    ]);
    // No claim on which cell is faster: sub-millisecond cells on a loaded host (the first one also pays the warm-up
    // of a fresh process) can swap order. Each cell's histogram holds every iteration, and p50 is the histogram's
    // within its resolution (1 µs, 3 significant digits). meanMs is the trimmed mean of the cell's round means (the
    // default decision-aware rule: at least 4 rounds): inside the histogram's range.
    for (const c of cells) {
      const h = LatencyHistogram.decode(c.histogram).summary();
      expect(h.count, `${c.threads}x${c.batch}`).toBe(c.iterations);
      expect(c.iterations).toBeGreaterThanOrEqual(12);
      expect(c.rounds).toBeGreaterThanOrEqual(4);
      expect(c.interferencePct).not.toBeNull();
      expect(c.meanMs).toBeGreaterThan(0);
      expect(c.meanMs).toBeLessThanOrEqual(h.maxMs * 1.01);
      expect(Math.abs(h.p50Ms - c.p50Ms)).toBeLessThanOrEqual(c.p50Ms * 0.01 + 0.002);
    }
    const profile = await db().profile.findUniqueOrThrow({ where: { id: profileId } });
    expect(profile.status).toBe("complete");
    expect(profile.hardwareClass).toMatch(/1S × \d+C × \d+T/);
  });

  it("cancels mid-job: the job ends cancelled, the cells it cut short are kept as such, and the agent goes idle", async () => {
    const { profileId } = await createProfileJob(caller, {
      deploymentId,
      threads: [1, 2],
      batches: SLOW_BATCHES,
      rule: "paper",
    });
    await running(profileId);
    // Past the 3rd of the paper rule's 10 rounds (10 iterations each): every cell has at least 2 rounds to keep.
    await until(
      async () =>
        Number(/round (\d+)/.exec((await jobOf(profileId)).progressMessage ?? "")?.[1] ?? 0) >= 3 || undefined,
      "round 3",
      120_000,
    );
    const kept = () => agent.log().split("cut-short cells kept").length - 1;
    const keptBefore = kept();
    await cancelProfileJob(caller, { profileId });
    await until(async () => kept() > keptBefore || undefined, "the agent to hand in its cut-short cells", 120_000);
    expect((await jobOf(profileId)).state).toBe("cancelled");
    expect((await db().profile.findUniqueOrThrow({ where: { id: profileId } })).status).toBe("cancelled");
    const cells = await db().profileCell.findMany({ where: { profileId } });
    const cut = cells.filter((c) => c.stopReason === "cancelled");
    expect(cut.length).toBeGreaterThan(0);
    for (const c of cut) {
      // Fewer rounds than the rule's 10, at least 2; 10 iterations a round; an estimate with an interval.
      expect(c.rounds).toBeGreaterThanOrEqual(2);
      expect(c.rounds).toBeLessThan(10);
      expect(c.iterations).toBe(c.rounds! * 10);
      expect(c.meanMs).toBeGreaterThan(0);
      expect(c.ciHalfWidthMs).toBeGreaterThan(0);
    }
    // Cells that had finished keep their own stop reason; every cell of the grid is kept at most once.
    expect(new Set(cells.map((c) => `${c.threads}x${c.batch}`)).size).toBe(cells.length);
    const cellsAtCancel = cells.length;
    await new Promise((r) => setTimeout(r, 1500));
    expect(await db().profileCell.count({ where: { profileId } })).toBe(cellsAtCancel); // idle: nothing more arrives
  });

  it("a cancel racing the agent's finish: whichever commits first wins and the job and its profile agree", async () => {
    const { profileId } = await createProfileJob(caller, {
      deploymentId,
      threads: [1, 2],
      batches: SLOW_BATCHES,
      rule: "paper",
    });
    await running(profileId);
    await new Promise((r) => setTimeout(r, 1000));
    const jobId = (await jobOf(profileId)).id;
    const dropped = () => agent.log().split("profiling job cancelled").length - 1;
    const droppedBefore = dropped();
    // Both at once, as when an engineer cancels while the agent reports its last cell: finish reads the job
    // under the same row lock cancel takes, so it never turns a cancelled job's profile into "partial".
    const cellsBefore = await db().profileCell.count({ where: { profileId } });
    const [cancel, finish] = await Promise.allSettled([
      cancelProfileJob(caller, { profileId }),
      finishProfileJob(agentId, jobId, "done", undefined),
    ]);
    const job = await jobOf(profileId);
    const profile = await db().profile.findUniqueOrThrow({ where: { id: profileId } });
    expect([cancel.status, finish.status].sort()).toEqual(["fulfilled", "rejected"]);
    if (cancel.status === "fulfilled") expect([job.state, profile.status]).toEqual(["cancelled", "cancelled"]);
    else expect([job.state, profile.status]).toEqual(["failed", cellsBefore > 0 ? "partial" : "failed"]);
    // Either way the agent's next report is refused (409) and it drops the job, idle for the next test.
    await until(async () => dropped() > droppedBefore, "the agent to drop the job");
  });

  it("requeues the job of an agent killed mid-job and resumes at the first missing cell", async () => {
    // One thread count's cells end in its 10th round while the other's last round (b = 256 among them) still runs.
    const { profileId } = await createProfileJob(caller, {
      deploymentId,
      threads: [1, 2],
      batches: RESUME_BATCHES,
      rule: "paper",
    });
    await until(async () => (await db().profileCell.count({ where: { profileId } })) >= 2, "two cells", 300_000);
    agent.process.kill("SIGKILL");
    await until(async () => agent.process.exitCode !== null || agent.process.signalCode !== null, "the agent to die");
    const before = await db().profileCell.findMany({ where: { profileId } });
    launch(); // new boot id → the job goes back to the queue and is claimed again
    const job = await until(
      async () => {
        const j = await jobOf(profileId);
        return j.state === "done" ? j : undefined;
      },
      "the resumed job to finish",
      400_000,
    );
    expect(job.attempts).toBe(2);
    const after = await db().profileCell.findMany({ where: { profileId } });
    expect(after).toHaveLength(2 * RESUME_BATCHES.length);
    // Cells measured before the kill were kept, not measured again.
    for (const cell of before) {
      const same = after.find((c) => c.threads === cell.threads && c.batch === cell.batch)!;
      expect(same.createdAt.getTime()).toBe(cell.createdAt.getTime());
    }
  }, 900_000);

  it("profiles a version that is not deployed: the agent fetches its artifact first", async () => {
    const prisma = db();
    const deployed = await prisma.deployment.findUniqueOrThrow({
      where: { id: deploymentId },
      include: { modelVersion: true },
    });
    const v2 = await insertModelVersion(
      dataDir,
      "tiny-cnn",
      buildTinyCnn({ seed: 99, producerVersion: "packrat-test" }),
      2,
      deployed.modelVersion.modelId,
    );
    const { profileId } = await createProfileJob(caller, {
      deploymentId,
      modelVersionId: v2.id,
      threads: [1],
      batches: [1, 2],
    });
    const job = await until(
      async () => {
        const j = await jobOf(profileId);
        return j.state === "done" || j.state === "failed" ? j : undefined;
      },
      "the job to finish",
      120_000,
    );
    expect(job.state).toBe("done");
    expect(await prisma.profileCell.count({ where: { profileId } })).toBe(2);
  });
});
