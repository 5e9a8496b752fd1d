// The Overview's read model against real PostgreSQL: what each role gets, and the figures from stored agents,
// deployments, rollups, proposals, alerts and jobs. The database is shared with other test files, so counts are
// read before and after this file's rows go in, and deployments are picked out by id.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { LatencyHistogram } from "@/core/stats/histogram";
import { rollupPartColumn } from "@/contracts/deployment-columns";
import { roles, type Role } from "@/core/security/roles";
import { db } from "@/server/db/client";
import { deploymentTimeline } from "./agents-query-service";
import { alertSnapshot } from "./alerts-evaluation-service";
import { getOverview, type Overview } from "./overview-service";

const tag = Math.random().toString(36).slice(2, 8);
const topology = { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] };
const now = new Date();
const minute = (agoMin: number) => new Date(Math.floor(now.getTime() / 60_000) * 60_000 - agoMin * 60_000);
const before = {} as Record<Role, Overview>;
let serving = "";
let idle = "";
let jobId = "";
let profileId = "";

beforeAll(async () => {
  for (const role of roles) before[role] = await getOverview(role, db(), now);
  const prisma = db();
  const agent = (hostName: string, lastHeartbeatAt: Date | null) =>
    prisma.agent.create({
      data: {
        hostName,
        agentVersion: "test",
        protocolVersion: 1,
        bootId: randomUUID(),
        topology,
        allowedCpus: [0],
        cpuModel: "overview cpu",
        memoryBytes: 1n,
        ortVersion: "1.30.0",
        lastHeartbeatAt,
      },
    });
  const online = await agent(`overview-on-${tag}`, now);
  await agent(`overview-off-${tag}`, new Date(now.getTime() - 3_600_000));
  const sha = randomUUID().replace(/-/g, "").padEnd(64, "0");
  await prisma.artifact.create({ data: { sha256: sha, bytes: 1n } });
  const model = await prisma.model.create({ data: { name: `overview-${tag}`, sloDeadlineMs: 20, sloQuantile: 0.99 } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha, source: "upload", analysis: {} },
  });
  const deployment = (state: string) =>
    prisma.deployment.create({
      data: { agentId: online.id, modelVersionId: version.id, cpus: [0], generation: 2, observedGeneration: 2, state },
    });
  serving = (await deployment("serving")).id;
  idle = (await deployment("failed")).id;
  // Two minutes: 1190 completed + 10 rejected in 120 s = 10/s; 1180 of 1190 within the SLO = 99.16 % ≥ 99 %.
  const histogram = LatencyHistogram.create();
  histogram.recordMs(5, 1180);
  histogram.recordMs(40, 10);
  // The minute's histograms: its parts (one here), beside its counters.
  await prisma.metricsRollupPart.create({
    data: { deploymentId: serving, minute: minute(2), encoded: rollupPartColumn.write({ total: histogram.encode() }) },
  });
  await prisma.metricsRollup.createMany({
    data: [
      {
        deploymentId: serving,
        minute: minute(2),
        intervalMs: 60_000,
        requestsCompleted: 600,
        requestsRejected: 0,
        requestsWithinSlo: 595,
      },
      {
        deploymentId: serving,
        minute: minute(1),
        intervalMs: 60_000,
        requestsCompleted: 590,
        requestsRejected: 10,
        requestsWithinSlo: 585,
      },
      // An hour ago: outside the live window.
      {
        deploymentId: serving,
        minute: minute(60),
        intervalMs: 60_000,
        requestsCompleted: 60_000,
        requestsRejected: 0,
        requestsWithinSlo: 0,
      },
    ],
  });
  await prisma.proposal.create({
    data: {
      id: randomUUID(),
      deploymentId: serving,
      items: [],
      plan: {},
      batchSize: 1,
      batchTimeoutMs: 0,
      baseGeneration: 2,
      reason: "test",
      expiresAt: new Date(now.getTime() + 3_600_000),
    },
  });
  await prisma.alert.create({
    data: {
      key: `overview:${tag}`,
      rule: "queue_rejections",
      severity: "critical",
      objectType: "deployment",
      objectId: serving,
      objectLabel: model.name,
      message: "m",
    },
  });
  jobId = randomUUID();
  await prisma.job.create({
    data: { id: jobId, kind: "profile", state: "running", progress: 0.5, params: {}, progressMessage: "2 / 4 cells" },
  });
  profileId = (
    await prisma.profile.create({
      data: {
        modelVersionId: version.id,
        jobId,
        agentId: online.id,
        deploymentId: serving,
        hardwareClass: "x",
        runtimeSignature: "y",
        cores: 1,
        threads: [1],
        batches: [1],
        stoppingRule: {},
        status: "running",
      },
    })
  ).id;
});

describe("the Overview", () => {
  it("gives each role only the tiles of pages it may read", async () => {
    const tiles = async (role: Role) => Object.keys(await getOverview(role, db(), now)).sort();
    const operator = ["agents", "alerts", "approvals", "deployments", "jobs", "liveRatePerS", "loop"];
    expect(await tiles("ml_engineer")).toEqual(operator);
    expect(await tiles("sre")).toEqual([...operator, "cost"].sort());
    expect(await tiles("manager")).toEqual(["alerts", "approvals", "cost", "loop"]);
    expect(await tiles("admin")).toEqual([...operator, "cost"].sort());
  });

  it("counts agents online and offline by heartbeat age, and pending approvals and open alerts", async () => {
    const o = await getOverview("sre", db(), now);
    expect(o.agents!.online - before.sre.agents!.online).toBe(1);
    expect(o.agents!.offline - before.sre.agents!.offline).toBe(1);
    expect(o.approvals!.pending - before.sre.approvals!.pending).toBe(1);
    expect(o.alerts!.openCritical - before.sre.alerts!.openCritical).toBe(1);
    expect(o.alerts!.open - before.sre.alerts!.open).toBe(1);
  });

  it("shows each deployment's state, live rate and p99 against its SLO", async () => {
    const o = await getOverview("ml_engineer", db(), now);
    const d = o.deployments!.find((x) => x.id === serving)!;
    expect(d).toMatchObject({
      modelName: `overview-${tag}`,
      hostName: `overview-on-${tag}`,
      state: "serving",
      slo: { deadlineMs: 20, quantile: 0.99 },
      meetsSlo: true,
    });
    // (600 + 0 + 590 + 10) requests over 120 s.
    expect(d.ratePerS).toBeCloseTo(10, 10);
    expect(d.withinSloShare).toBeCloseTo(1180 / 1190, 10);
    // 10 of 1190 requests (0.84 %) took 40 ms: fewer than 1 %, so p99 lies among the 5 ms ones.
    expect(d.p99Ms).toBeGreaterThan(4.9);
    expect(d.p99Ms).toBeLessThan(5.1);
    const failed = o.deployments!.find((x) => x.id === idle)!;
    expect(failed).toMatchObject({ state: "failed", ratePerS: 0, p99Ms: null, withinSloShare: null, meetsSlo: null });
    expect(o.liveRatePerS! - before.ml_engineer.liveRatePerS!).toBeCloseTo(10, 6);
  });

  it("lists running jobs with a link to what they produce", async () => {
    const o = await getOverview("ml_engineer", db(), now);
    expect(o.jobs!.find((j) => j.id === jobId)).toEqual({
      id: jobId,
      kind: "profile",
      state: "running",
      progress: 0.5,
      message: "2 / 4 cells",
      href: `/profiles/${profileId}`,
    });
  });

  it("prices this month to date for a cost reader", async () => {
    const o = await getOverview("manager", db(), now);
    expect(o.cost!.since.toISOString()).toBe(
      new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    );
    expect(o.cost!.deployments - before.manager.cost!.deployments).toBe(2);
    expect(o.cost!.costUsd).toBeGreaterThanOrEqual(0);
  });

  it("shows the serving loop from what exists: a proposal ticks optimize and propose", async () => {
    const o = await getOverview("manager", db(), now);
    expect(o.loop!.steps.find((s) => s.key === "propose")!.done).toBe(true);
    expect(o.loop!.needsDeployment).toBe(false);
  });

  it("the deployment chart's minutes take their latency from that minute's parts", async () => {
    const timeline = await deploymentTimeline(serving, 10);
    const at = (m: Date) => timeline.find((t) => t.minute.getTime() === m.getTime())!;
    // minute(2) has a part with the total histogram (5 ms × 1180, 40 ms × 10); minute(1) has none.
    expect(at(minute(2)).p50Ms).toBeCloseTo(5, 0);
    expect(at(minute(2)).p99Ms).toBeCloseTo(5, 0);
    expect(at(minute(1)).p50Ms).toBeNull();
  });

  it("the alert rules' compute time merges the minutes' histogram parts, each minute's parts all read", async () => {
    const part = (samplesMs: number[]) => {
      const h = LatencyHistogram.create();
      for (const ms of samplesMs) h.recordMs(ms);
      return h;
    };
    const parts = [part([2, 4]), part([30]), part([8, 8, 8])];
    await db().metricsRollupPart.createMany({
      data: [
        { deploymentId: serving, minute: minute(1), encoded: rollupPartColumn.write({ compute: parts[0]!.encode() }) },
        { deploymentId: serving, minute: minute(1), encoded: rollupPartColumn.write({ compute: parts[1]!.encode() }) },
        { deploymentId: serving, minute: minute(2), encoded: rollupPartColumn.write({ compute: parts[2]!.encode() }) },
      ],
    });
    const snapshot = await db().$transaction((tx) => alertSnapshot(tx, now, 10 * 60_000));
    const mine = snapshot.deployments.find((d) => d.id === serving)!;
    expect(mine.window.meanComputeMs).toBeCloseTo(LatencyHistogram.merge(parts).summary().meanMs, 9);
  });
});
