// Fault tolerance of the control plane and its database (issue #22, items 1, 2, 5, 6 and 8): the control plane runs
// as processes of its own (test/fault/control-plane-main.ts) over a throwaway PostgreSQL cluster of this file's own,
// never the shared one; agents are real agent processes, each leading its own process group. Timing constants are
// shortened (heartbeat 300 ms, offline after 3 s, agent lost after 10 s, reconnect backoff 100–300 ms); the long-poll
// holds 20 s, so a change that arrives sooner woke it. Times are reported (test/fault/figures.ts), never asserted;
// the 60 s bounds only stop a hang. The tests run in order and share the cluster, the first replica and agent A.
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { FileArtifactStore, type ArtifactStore } from "@/server/artifacts/artifact-store";
import { useArtifactStoreForTests } from "@/server/artifacts/default-store";
import { handleModelUpload } from "@/server/api/model-upload-handler";
import { resetAuthForTests } from "@/server/auth/auth";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { migrate } from "@/server/db/migrator";
import { deployModel } from "@/server/services/deployments-service";
import { createProfileJob } from "@/server/services/profiling-service";
import type { ServiceCaller } from "@/server/services/users-service";
import { pointServerAt } from "@/testing/fuzz/procedure-world";
import { freePort } from "../../apps/agent/src/test-agent-process";
import { insertModelVersion, startAgentProcess, until, type TestAgent } from "../control-plane-harness";
import { createDatabase, startThrowawayPostgres, type ThrowawayPostgres } from "../find-postgres";
import { sessionCookie } from "../session-cookie";
import { recordFigures } from "./figures";
import { measureCapacity, startOpenLoad, TinyCnnRequests } from "./inference-load";
import { Cleanup, killGroup, signalGroup, startControlPlaneProcess, type ControlPlaneProcess } from "./process-group";
import { testEnv } from "../test-env";

const ORIGIN = "http://localhost:3996";
const model = buildTinyCnn({ seed: 23, producerVersion: "packrat-fault" });
const cleanup = new Cleanup();
const sharedDatabaseUrl = testEnv.DATABASE_URL!;
let postgres: ThrowawayPostgres;
let databaseUrl = "";
let dataDir = "";
let cpEnv: Record<string, string>;
let cp1: ControlPlaneProcess;
let cp1Port = 0;
let admin: ServiceCaller;
let ml: ServiceCaller;
const cookies = { sre: "", ml: "" };
let requests: TinyCnnRequests;
// Agent A: attached to replica 1, serving the tiny CNN.
let agentA: TestAgent;
let tokenA = "";
let stateA = "";
let portA = 0;
let agentAId = "";
let deploymentA = "";

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function launchAgentA(): TestAgent {
  agentA = startAgentProcess(`http://127.0.0.1:${cp1Port}`, tokenA, stateA, portA, {}, { detached: true });
  const child = agentA.process;
  cleanup.add(() => killGroup(child));
  return agentA;
}

/** A dashboard query over HTTP, as the browser sends it (superjson envelope, session cookie). */
async function dashboardQuery(base: string, path: string, cookie: string, input?: unknown) {
  const query = input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify({ json: input }))}`;
  const response = await fetch(`${base}/api/trpc/${path}${query}`, {
    headers: { cookie },
    signal: AbortSignal.timeout(30_000),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tRPC envelope, read field by field
  const body = (await response.json()) as any;
  return {
    status: response.status,
    data: body.result?.data?.json,
    error: body.error?.json?.message as string | undefined,
  };
}

async function dashboardMutation(base: string, path: string, cookie: string, input: unknown) {
  const response = await fetch(`${base}/api/trpc/${path}`, {
    method: "POST",
    headers: { cookie, origin: ORIGIN, "content-type": "application/json" },
    body: JSON.stringify({ json: input }),
    signal: AbortSignal.timeout(30_000),
  });
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a tRPC envelope, read field by field
  const body = (await response.json()) as any;
  return {
    status: response.status,
    data: body.result?.data?.json,
    error: body.error?.json?.message as string | undefined,
  };
}

const jobOf = async (profileId: string) => {
  const profile = await db().profile.findUniqueOrThrow({ where: { id: profileId } });
  return { profile, job: await db().job.findUniqueOrThrow({ where: { id: profile.jobId! } }) };
};

beforeAll(async () => {
  postgres = await startThrowawayPostgres();
  cleanup.add(() => postgres.stop());
  databaseUrl = (await createDatabase(postgres.adminUrl, "packrat_fault")).url;
  await migrate(databaseUrl, resolve("prisma/migrations"));
  dataDir = mkdtempSync(join(tmpdir(), "packrat-fault-"));
  cleanup.add(() => rmSync(dataDir, { recursive: true, force: true }));
  cpEnv = {
    DATABASE_URL: databaseUrl,
    PACKRAT_DATA_DIR: dataDir,
    PACKRAT_PUBLIC_URL: ORIGIN,
    BETTER_AUTH_SECRET: "fault-suite-secret-0123456789abcdef0123",
    HEARTBEAT_INTERVAL_MS: "300",
    AGENT_OFFLINE_AFTER_MS: "3000",
    AGENT_LOST_TIMEOUT_MS: "10000",
    LONG_POLL_HOLD_MS: "20000",
    LOG_LEVEL: "warn",
  };
  Object.assign(testEnv, cpEnv);
  await pointServerAt(databaseUrl);
  resetAuthForTests();
  usePasswordHasherForTests(cheapHasher);
  const prisma = db();
  admin = { user: await insertTestUser(prisma, "admin"), requestId: "fault-suite" };
  const mlUser = await insertTestUser(prisma, "ml_engineer");
  const sreUser = await insertTestUser(prisma, "sre");
  ml = { user: mlUser, requestId: "fault-suite" };
  cookies.sre = await sessionCookie(ORIGIN, sreUser.email, sreUser.password);
  cookies.ml = await sessionCookie(ORIGIN, mlUser.email, mlUser.password);
  cp1Port = await freePort();
  cp1 = await startControlPlaneProcess(cp1Port, cpEnv, cleanup);

  const token = await createTestAgentToken(admin, { name: "fault agent A" });
  tokenA = token.token;
  stateA = join(dataDir, "agent-a");
  portA = await freePort();
  launchAgentA();
  agentAId = (
    await until(() => prisma.agent.findFirst({ where: { tokens: { some: { id: token.id } } } }), "agent A to register")
  ).id;
  const registered = await prisma.agent.findUniqueOrThrow({ where: { id: agentAId } });
  const version = await insertModelVersion(dataDir, "tiny-cnn", model);
  deploymentA = (
    await deployModel(admin, { agentId: agentAId, modelVersionId: version.id, cpus: registered.allowedCpus })
  ).id;
  await until(
    async () => (await prisma.deployment.findUniqueOrThrow({ where: { id: deploymentA } })).observedGeneration === 1,
    "agent A to serve generation 1",
  );
  requests = await TinyCnnRequests.create(model);
});

afterAll(async () => {
  useArtifactStoreForTests(undefined);
  await cleanup.run();
  await pointServerAt(sharedDatabaseUrl);
});

describe("control-plane faults", () => {
  it("SIGKILLed control plane under half-capacity load: zero failed inferences; the agent reattaches and shows online at its generation", async () => {
    const capacity = await measureCapacity(requests.sender(agentA.url));
    const rate = Math.max(10, Math.min(150, Math.round(capacity / 2)));
    const load = startOpenLoad(requests.sender(agentA.url), rate);
    await pause(1_000);
    await killGroup(cp1.process);
    const killedAt = Date.now();
    await pause(1_500);
    cp1 = await startControlPlaneProcess(cp1Port, cpEnv, cleanup);
    const restartedAt = Date.now();
    // Reattached: a heartbeat that this control plane received.
    await until(
      async () =>
        ((await db().agent.findUniqueOrThrow({ where: { id: agentAId } })).lastHeartbeatAt?.getTime() ?? 0) >
        restartedAt,
      "agent A to heartbeat again",
    );
    const reattachMs = Date.now() - restartedAt;
    // The dashboard (agents.list through the restarted replica) shows it online, serving generation 1.
    const listed = await until(async () => {
      const r = await dashboardQuery(cp1.url, "agents.list", cookies.sre);
      return r.data?.find((a: { id: string; online: boolean }) => a.id === agentAId && a.online);
    }, "agent A online on the dashboard");
    await pause(500);
    const figures = await load.stop();
    recordFigures("control-plane-sigkill", {
      sent: figures.sent,
      ok: figures.ok,
      failed: figures.failed,
      lost: figures.lost,
      wrong: figures.wrong,
      ratePerS: rate,
      capacityPerS: Math.round(capacity),
      controlPlaneDownMs: restartedAt - killedAt,
      reattachMs,
      goalMs: 5_000,
    });
    expect(listed.deployments[0]).toMatchObject({
      id: deploymentA,
      generation: 1,
      observedGeneration: 1,
      state: "serving",
    });
    expect(figures.errorSamples).toEqual([]);
    expect(figures.failed).toBe(0);
    expect(figures.ok).toBe(figures.sent);
  });

  it("SIGKILLed agent mid-profiling: the restarted agent serves before the control plane answers; the job resumes, never stuck, never complete with cells missing", async () => {
    const threads = [1, 2];
    // Up to b = 256, so on a fast machine the job is still running when the agent is killed.
    const batches = [1, 4, 16, 64, 256];
    const { profileId } = await createProfileJob(ml, { deploymentId: deploymentA, threads, batches, rule: "paper" });
    await until(async () => (await db().profileCell.count({ where: { profileId } })) >= 2, "two cells");
    await killGroup(agentA.process);
    const killed = await jobOf(profileId);
    // The control plane stops answering (SIGSTOP: connections open, no reply) before the agent comes back.
    signalGroup(cp1.process, "SIGSTOP");
    let resumedCp = false;
    cleanup.add(() => {
      if (!resumedCp) signalGroup(cp1.process, "SIGCONT");
    });
    const restartedAt = Date.now();
    launchAgentA();
    const serve = requests.sender(agentA.url);
    await until(async () => (await serve(0)).kind === "ok", "the restarted agent to serve its persisted generation");
    const servedAfterMs = Date.now() - restartedAt;
    signalGroup(cp1.process, "SIGCONT");
    resumedCp = true;
    const resumedAt = Date.now();
    const { job } = await until(
      async () => {
        const j = await jobOf(profileId);
        return j.job.state === "done" || j.job.state === "failed" ? j : undefined;
      },
      "the job to finish or fail",
      90_000,
    );
    // Read after the job ended: the job and its profile change in one transaction, jobOf reads them one by one.
    const profile = await db().profile.findUniqueOrThrow({ where: { id: profileId } });
    const cells = await db().profileCell.findMany({ where: { profileId } });
    recordFigures("agent-sigkill-mid-profiling", {
      cellsAtKill: await db().profileCell.count({ where: { profileId, createdAt: { lte: new Date(restartedAt) } } }),
      cellsTotal: threads.length * batches.length,
      servedBeforeControlPlaneMs: servedAfterMs,
      jobEndedAfterMs: Date.now() - resumedAt,
      jobState: job.state,
      attempts: job.attempts,
      profileStatus: profile.status,
    });
    expect(killed.profile.status).not.toBe("complete");
    expect(["done", "failed"]).toContain(job.state);
    // Complete only with every cell; each cell measured once.
    if (profile.status === "complete") expect(cells).toHaveLength(threads.length * batches.length);
    else expect(profile.status).toMatch(/partial|failed/);
    expect(new Set(cells.map((c) => `${c.threads}x${c.batch}`)).size).toBe(cells.length);
    // Reattached afterwards at the same generation.
    await until(
      async () => (await db().deployment.findUniqueOrThrow({ where: { id: deploymentA } })).state === "serving",
      "the deployment to be serving",
    );
  });

  it("PostgreSQL stopped for 10 s under dashboard use: 503 with a clear message, recovery by itself, invariants hold", async () => {
    const load = startOpenLoad(requests.sender(agentA.url), 20);
    const answers: Array<{ at: number; status: number; error?: string }> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const at = Date.now();
        answers.push(
          await dashboardQuery(cp1.url, "agents.list", cookies.sre).then(
            (r) => ({ at, status: r.status, error: r.error }),
            (error: Error) => ({ at, status: 0, error: error.message }),
          ),
        );
        await pause(250);
      }
    })();
    const deploymentsBefore = await db().deployment.count();
    await pause(500);
    await postgres.pause();
    const stoppedAt = Date.now();
    await pause(3_000);
    const health = await fetch(`${cp1.url}/api/health`);
    const healthBody = await health.json();
    // The agent API too: 503 with the same message (an agent retries with backoff), not a 500.
    const whoami = await fetch(`${cp1.url}/api/agent/v1/whoami`, {
      headers: { authorization: `Bearer ${tokenA}` },
      signal: AbortSignal.timeout(30_000),
    });
    const whoamiBody = await whoami.json();
    // A change attempted during the outage is refused whole.
    const change = await dashboardMutation(cp1.url, "deployments.undeploy", cookies.sre, { deploymentId: deploymentA });
    await pause(Math.max(0, 10_000 - (Date.now() - stoppedAt)));
    await postgres.resume();
    const resumedAt = Date.now();
    await until(async () => answers.some((a) => a.at > resumedAt && a.status === 200), "the dashboard to answer again");
    const recoveredMs = Date.now() - resumedAt;
    // The agent heartbeats again through the same control plane (its pool reconnected by itself).
    await until(
      async () =>
        ((await db().agent.findUniqueOrThrow({ where: { id: agentAId } })).lastHeartbeatAt?.getTime() ?? 0) > resumedAt,
      "agent A to heartbeat after the outage",
    );
    polling = false;
    await poller;
    const figures = await load.stop();
    const during = answers.filter((a) => a.at >= stoppedAt && a.at < resumedAt);
    const failedDuring = during.filter((a) => a.status !== 200);
    recordFigures("database-outage", {
      outageMs: resumedAt - stoppedAt,
      dashboardRequests: answers.length,
      dashboardDuringOutage: during.length,
      dashboard503: answers.filter((a) => a.status === 503).length,
      dashboardOther: answers.filter((a) => a.status !== 200 && a.status !== 503).length,
      dashboardRecoveredMs: recoveredMs,
      inferenceSent: figures.sent,
      inferenceFailed: figures.failed,
    });
    expect(health.status).toBe(503);
    expect(healthBody.checks.database.ok).toBe(false);
    expect({ status: whoami.status, error: whoamiBody.error }).toEqual({
      status: 503,
      error: { code: "UNAVAILABLE", message: "The database is unavailable; try again in a few seconds" },
    });
    expect(change.status).toBe(503);
    expect(change.error).toMatch(/database is unavailable/);
    expect(failedDuring.length).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${a.error}`)).toEqual(
      answers.filter((a) => a.status !== 200).map(() => "503 The database is unavailable; try again in a few seconds"),
    );
    // Inference never depends on the database.
    expect(figures.failed).toBe(0);
    expect(await db().deployment.count()).toBe(deploymentsBefore);
    expect((await db().deployment.findUniqueOrThrow({ where: { id: deploymentA } })).removedAt).toBeNull();
    // Invariants: no approved proposal without its generation, no generation without its audit row.
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      const orphanProposals =
        await client.query(`SELECT p.id FROM proposal p WHERE p.state IN ('applying', 'applied', 'failed') AND p."decidedAt" IS NOT NULL
        AND NOT EXISTS (SELECT 1 FROM deployment_generation g WHERE g."deploymentId" = p."deploymentId" AND g.generation = p."appliedGeneration")`);
      const unaudited =
        await client.query(`SELECT g.id FROM deployment_generation g WHERE NOT EXISTS (SELECT 1 FROM audit_event a WHERE
        (a."targetType" = 'deployment' AND a."targetId" = g."deploymentId") OR (a."targetType" = 'proposal' AND a."targetId" IN (SELECT p.id FROM proposal p WHERE p."deploymentId" = g."deploymentId" AND p."appliedGeneration" = g.generation)))`);
      const generations = await client.query("SELECT count(*)::int AS n FROM deployment_generation");
      expect(generations.rows[0].n).toBeGreaterThan(0);
      expect(orphanProposals.rows).toEqual([]);
      expect(unaudited.rows).toEqual([]);
    } finally {
      await client.end();
    }
  });

  it("artifact store faults: a data dir under a regular file (ENOTDIR) and a disk full after N bytes (ENOSPC): a clear error, nothing stored, the control plane up", async () => {
    const upload = (name: string, store?: ArtifactStore) =>
      handleModelUpload(
        new Request(`${ORIGIN}/api/models/upload?name=${name}`, {
          method: "POST",
          headers: { origin: ORIGIN, cookie: cookies.ml, "content-type": "application/octet-stream" },
          body: Buffer.from(model),
        }),
        { store },
      );
    const versionsBefore = await db().modelVersion.count();
    const artifactsBefore = await db().artifact.count();

    // ENOTDIR: PACKRAT_DATA_DIR's parent is a regular file, so the default store cannot be made.
    const file = join(dataDir, "not-a-directory");
    writeFileSync(file, "x");
    testEnv.PACKRAT_DATA_DIR = join(file, "data");
    const { resetEnvForTests } = await import("@/server/env");
    resetEnvForTests();
    const notDir = await upload("fault-enotdir");
    testEnv.PACKRAT_DATA_DIR = dataDir;
    resetEnvForTests();
    const notDirBody = await notDir.json();

    // ENOSPC after N bytes: a hand-written store over a real FileArtifactStore whose disk fills up mid-stream.
    const root = join(dataDir, "full-disk");
    const full = new FullDiskStore(new FileArtifactStore(root), 4096);
    const noSpace = await upload("fault-enospc", full);
    const noSpaceBody = await noSpace.json();
    const health = await fetch(`${cp1.url}/api/health`);
    recordFigures("artifact-store-faults", {
      enotdirStatus: notDir.status,
      enospcStatus: noSpace.status,
      enospcAfterBytes: 4096,
      bytesOffered: model.length,
    });
    expect({ status: notDir.status, body: notDirBody.error }).toEqual({
      status: 503,
      body: {
        code: "STORAGE_UNAVAILABLE",
        message: expect.stringMatching(/a part of its path is a file.*ENOTDIR.*nothing was kept/),
      },
    });
    expect({ status: noSpace.status, body: noSpaceBody.error }).toEqual({
      status: 507,
      body: { code: "INSUFFICIENT_STORAGE", message: expect.stringMatching(/disk is full.*ENOSPC.*nothing was kept/) },
    });
    expect(full.bytesWritten).toBe(4096);
    // Nothing stored: no rows, no staged or committed file.
    expect(await db().modelVersion.count()).toBe(versionsBefore);
    expect(await db().artifact.count()).toBe(artifactsBefore);
    expect(await db().model.count({ where: { name: { startsWith: "fault-" } } })).toBe(0);
    expect(readdirSync(join(root, "staging"))).toEqual([]);
    expect(await full.list()).toEqual([]);
    expect(health.status).toBe(200);
  });

  it("two replicas over one database: a long-poll woken through the other replica, a version uploaded through one fetched through the other, a profiling job run once", async () => {
    // Agent B attaches to replica 1, whose LISTEN connection went through the database outage above; changes are
    // made through replica 2, started now.
    const cp2 = await startControlPlaneProcess(await freePort(), cpEnv, cleanup);
    const token = await createTestAgentToken(admin, { name: "fault agent B" });
    const agentB = startAgentProcess(
      cp1.url,
      token.token,
      join(dataDir, "agent-b"),
      await freePort(),
      {},
      { detached: true },
    );
    cleanup.add(() => killGroup(agentB.process));
    const registeredB = await until(
      () => db().agent.findFirst({ where: { tokens: { some: { id: token.id } } } }),
      "agent B to register through replica 1",
    );
    // Agent B now long-polls replica 1 for its desired state (held up to 20 s).
    await pause(1_000);

    // Upload through replica 2's upload route; both replicas share the data dir (the artifact store's files).
    const otherModel = buildTinyCnn({ seed: 24, producerVersion: "packrat-fault" });
    const uploaded = await fetch(`${cp2.url}/api/models/upload?name=tiny-cnn-b`, {
      method: "POST",
      headers: { origin: ORIGIN, cookie: cookies.ml, "content-type": "application/octet-stream" },
      body: Buffer.from(otherModel),
      signal: AbortSignal.timeout(60_000),
    });
    expect(uploaded.status).toBe(201);
    const { version } = await uploaded.json();

    // Deploy through replica 2's dashboard API; agent B, waiting on replica 1, is woken and fetches the artifact from it.
    const deployedAt = Date.now();
    const deploy = await dashboardMutation(cp2.url, "deployments.deploy", cookies.sre, {
      agentId: registeredB.id,
      modelVersionId: version.id,
      cpus: registeredB.allowedCpus,
    });
    expect(deploy.error).toBeUndefined();
    await until(
      async () => (await db().deployment.findUniqueOrThrow({ where: { id: deploy.data.id } })).observedGeneration === 1,
      "agent B to serve the uploaded version",
    );
    const wokenAndServingMs = Date.now() - deployedAt;
    const answer = await fetch(`${agentB.url}/v2/models/tiny-cnn-b/infer`, {
      method: "POST",
      body: requests.bodies[0],
    });
    expect(answer.status).toBe(200);

    // A profiling job created through replica 2 and claimed by agent B through replica 1: one claim, each cell once.
    const createdAt = Date.now();
    const created = await dashboardMutation(cp2.url, "profiles.create", cookies.ml, {
      deploymentId: deploy.data.id,
      threads: [1],
      batches: [1, 2, 4],
      rule: "paper",
    });
    expect(created.error).toBeUndefined();
    const claimed = await until(
      async () => ((await jobOf(created.data.profileId)).job.startedAt ? Date.now() : undefined),
      "agent B to claim the job",
    );
    const { job } = await until(
      async () => {
        const j = await jobOf(created.data.profileId);
        return j.job.state === "done" || j.job.state === "failed" ? j : undefined;
      },
      "the job through two replicas to finish",
      60_000,
    );
    const cells = await db().profileCell.findMany({ where: { profileId: created.data.profileId } });
    recordFigures("two-replicas", {
      wokenAndServingMs,
      longPollHoldMs: 20_000,
      jobClaimedAfterMs: claimed - createdAt,
      jobState: job.state,
      attempts: job.attempts,
      cells: cells.length,
    });
    expect(wokenAndServingMs).toBeLessThan(20_000); // sooner than the hold: the NOTIFY woke it
    expect(job.state).toBe("done");
    expect(job.attempts).toBe(1);
    expect(cells.map((c) => c.batch).sort((a, b) => a - b)).toEqual([1, 2, 4]);
  });
});

/** A disk that fills up after `capacity` bytes: staging fails with ENOSPC once that many bytes were written. */
class FullDiskStore implements ArtifactStore {
  bytesWritten = 0;
  constructor(
    private readonly inner: FileArtifactStore,
    private readonly capacity: number,
  ) {}

  stage(source: AsyncIterable<Uint8Array> | Readable, maxBytes: number) {
    return this.inner.stage(this.filling(source as AsyncIterable<Uint8Array>), maxBytes);
  }

  private async *filling(source: AsyncIterable<Uint8Array>) {
    for await (const chunk of source) {
      const room = this.capacity - this.bytesWritten;
      if (chunk.length > room) {
        if (room > 0) {
          this.bytesWritten += room;
          yield chunk.subarray(0, room);
        }
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), {
          code: "ENOSPC",
          errno: -28,
          syscall: "write",
        });
      }
      this.bytesWritten += chunk.length;
      yield chunk;
    }
  }

  commit(...args: Parameters<ArtifactStore["commit"]>) {
    return this.inner.commit(...args);
  }
  discard(...args: Parameters<ArtifactStore["discard"]>) {
    return this.inner.discard(...args);
  }
  has(sha256: string) {
    return this.inner.has(sha256);
  }
  size(sha256: string) {
    return this.inner.size(sha256);
  }
  read(sha256: string) {
    return this.inner.read(sha256);
  }
  remove(sha256: string) {
    return this.inner.remove(sha256);
  }
  list() {
    return this.inner.list();
  }
  localPath(sha256: string) {
    return this.inner.localPath(sha256);
  }
  modifiedAt(sha256: string) {
    return this.inner.modifiedAt(sha256);
  }
  removeStaleStaging(before: Date) {
    return this.inner.removeStaleStaging(before);
  }
}
