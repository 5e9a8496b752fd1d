// The profile form's duration probe and the profiling notifications (issue #14) with a real attached agent: the
// agent claims the probe, runs 3 iterations at t = 1, b = 1 in its profiler and posts the cell; the time agrees with a
// direct ORT measurement here within a generous factor. A profiling job that finishes notifies its creator.
// Timing constants shortened: heartbeat 300 ms, long-poll 1 s.
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { insertTestUser } from "@/server/auth/test-support";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import {
  agentApiRoutes,
  insertModelVersion,
  startRouteServer,
  stopProcess,
  serveOnNewAgent,
  until,
} from "../../../test/control-plane-harness";
import { listNotifications, markNotificationsRead } from "./notifications-service";
import {
  expireStaleProbes,
  getProfileProbe,
  PROBE_CLAIM_TIMEOUT_MS,
  PROBE_CELL,
  requestProfileProbe,
} from "./profile-probe-service";
import { cancelProfileJob, createProfileJob } from "./profiling-service";
import type { ServiceCaller } from "./users-service";
import { PROFILE_PROBE_JOB_KIND } from "@/contracts/agent-jobs";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-probe-"));
chmodSync(dataDir, 0o755);
let ml: ServiceCaller;
let otherMl: ServiceCaller;
let sre: ServiceCaller;
let server: Awaited<ReturnType<typeof startRouteServer>>;
let deploymentId: string;
let modelId: string;
let v1Bytes: Uint8Array;
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
  ml = { user: await insertTestUser(prisma, "ml_engineer"), requestId: "probe-test" };
  otherMl = { user: await insertTestUser(prisma, "ml_engineer"), requestId: "probe-test" };
  sre = { user: await insertTestUser(prisma, "sre"), requestId: "probe-test" };
  const admin: ServiceCaller = { user: await insertTestUser(prisma, "admin"), requestId: "probe-test" };
  server = await startRouteServer(await agentApiRoutes());
  v1Bytes = buildTinyCnn({ seed: 21, producerVersion: "packrat-test" });
  const served = await serveOnNewAgent({
    controlPlaneUrl: server.url,
    admin,
    dataDir,
    tokenName: "probe",
    modelName: "tiny-cnn-probe",
    modelBytes: v1Bytes,
    children,
  });
  deploymentId = served.deploymentId;
  modelId = served.version.modelId;
});

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const settled = (probeId: string) =>
  until(
    async () => {
      const p = await getProfileProbe(probeId);
      return p.state === "done" || p.state === "failed" ? p : undefined;
    },
    "the probe to finish",
    90_000,
  );

/** The same cell measured here: one session of one thread, one warm-up, then the median of 21 runs at batch 1. */
async function directMedianMs(bytes: Uint8Array): Promise<number> {
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1 });
  const feeds = { input: new ort.Tensor("float32", new Float32Array(3 * 32 * 32).fill(0.5), [1, 3, 32, 32]) };
  await session.run(feeds);
  const times: number[] = [];
  for (let i = 0; i < 21; i++) {
    const start = performance.now();
    await session.run(feeds);
    times.push(performance.now() - start);
  }
  await session.release();
  return times.sort((a, b) => a - b)[10]!;
}

describe("the duration probe", () => {
  // Medians on both sides: on a shared 2-core host one preempted run can multiply a 3-sample mean of a sub-ms model.
  it("the agent runs 3 iterations at t = 1, b = 1 and its median agrees with a direct ORT run within 10×", async () => {
    const asked = await requestProfileProbe(ml, { deploymentId });
    expect(["queued", "running"]).toContain(asked.state);
    const probe = await settled(asked.probeId);
    expect(probe.error).toBeNull();
    expect(probe.state).toBe("done");
    expect(probe.iterations).toBe(PROBE_CELL.iterations);
    const direct = await directMedianMs(v1Bytes);
    expect(probe.meanMs!).toBeGreaterThanOrEqual(probe.p50Ms! / 3); // a mean of 3 is at least a third of their median
    expect(probe.p50Ms!).toBeGreaterThan(0);
    expect(probe.p50Ms! / direct).toBeLessThan(10);
    expect(direct / probe.p50Ms!).toBeLessThan(10);
    const job = await db().job.findUniqueOrThrow({ where: { id: asked.probeId } });
    expect(job.kind).toBe(PROFILE_PROBE_JOB_KIND);
    expect(job.createdById).toBe(ml.user.id);
  });

  it("asking again for the same version and shape reuses the recent probe instead of measuring again", async () => {
    const first = await requestProfileProbe(ml, { deploymentId });
    const again = await requestProfileProbe(otherMl, { deploymentId });
    expect(again.probeId).toBe(first.probeId);
    expect(again.state).toBe("done");
  });

  it("a version that is not deployed (so not cached): the agent fetches its artifact, then probes it", async () => {
    const v2 = await insertModelVersion(
      dataDir,
      "tiny-cnn-probe",
      buildTinyCnn({ seed: 77, producerVersion: "packrat-test" }),
      2,
      modelId,
    );
    const cached = join(dataDir, "agent", "artifacts", `${v2.artifactSha256}.onnx`);
    expect(existsSync(cached)).toBe(false);
    const asked = await requestProfileProbe(ml, { deploymentId, modelVersionId: v2.id });
    const probe = await settled(asked.probeId);
    expect(probe.state).toBe("done");
    expect(probe.meanMs!).toBeGreaterThan(0);
    expect(existsSync(cached)).toBe(true);
  });

  it("a version of another model is refused, naming the field", async () => {
    const other = await insertModelVersion(
      dataDir,
      "some-other-model",
      buildTinyCnn({ seed: 3, producerVersion: "packrat-test" }),
    );
    await expect(requestProfileProbe(ml, { deploymentId, modelVersionId: other.id })).rejects.toMatchObject({
      code: "INVALID_INPUT",
      details: { field: "modelVersionId" },
    });
  });

  it("a probe no agent claims in time reads as failed, and is expired before it could run late", async () => {
    const id = randomUUID();
    const old = new Date(Date.now() - PROBE_CLAIM_TIMEOUT_MS - 5_000);
    await db().job.create({
      data: { id, kind: PROFILE_PROBE_JOB_KIND, params: { agentId: "no-such-agent" }, createdAt: old },
    });
    const read = await getProfileProbe(id);
    expect(read.state).toBe("failed");
    expect(read.error).toMatch(/did not pick the probe up in time/);
    expect(await expireStaleProbes()).toBeGreaterThanOrEqual(1);
    expect((await db().job.findUniqueOrThrow({ where: { id } })).state).toBe("failed");
  });
});

describe("profiling notifications", () => {
  it("a finished job notifies its creator (only them), linking to the profile; marking read clears the count", async () => {
    const before = await listNotifications(ml);
    const { profileId } = await createProfileJob(ml, { deploymentId, threads: [1], batches: [1, 2] });
    const note = await until(
      async () => (await listNotifications(ml)).items.find((n) => n.link === `/profiles/${profileId}`),
      "the notification",
      120_000,
    );
    expect(note.kind).toBe("profile.complete");
    expect(note.title).toMatch(/^Profile of tiny-cnn-probe v1 on .+ finished$/);
    expect(note.body).toBe("2 of 2 cells measured");
    expect(note.read).toBe(false);
    const after = await listNotifications(ml);
    expect(after.unread).toBe(before.unread + 1);
    // Nobody else hears of it, and nobody else can mark it read.
    expect((await listNotifications(otherMl)).items.some((n) => n.id === note.id)).toBe(false);
    expect(await markNotificationsRead(otherMl, { ids: [note.id] })).toEqual({ marked: 0 });
    expect(await markNotificationsRead(ml, { ids: [note.id] })).toEqual({ marked: 1 });
    const read = await listNotifications(ml);
    expect(read.unread).toBe(before.unread);
    expect(read.items.find((n) => n.id === note.id)?.read).toBe(true);
  });

  it("a job an sre cancels notifies its creator; one the creator cancels does not", async () => {
    const big = { deploymentId, threads: [1], batches: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096] };
    const byOther = await createProfileJob(ml, big);
    await cancelProfileJob(sre, { profileId: byOther.profileId });
    const notes = (await listNotifications(ml)).items.filter((n) => n.link === `/profiles/${byOther.profileId}`);
    expect(notes.map((n) => n.kind)).toEqual(["profile.cancelled"]);
    expect(notes[0]!.body).toContain(`cancelled by ${sre.user.name}`);
    const own = await createProfileJob(ml, big);
    await cancelProfileJob(ml, { profileId: own.profileId });
    expect((await listNotifications(ml)).items.some((n) => n.link === `/profiles/${own.profileId}`)).toBe(false);
  });
});
