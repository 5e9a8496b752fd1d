// Cost reports against real PostgreSQL (issue #21): stored prices, load tests, heartbeat rollups and a profile in;
// the report's numbers must equal planning core I's functions on exactly those stored inputs.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { replicasAtRatedCapacity } from "@/core/planning/capacity";
import { costPerMillionAtRateUsd, costReport, monthlyCostUsd } from "@/core/planning/cost";
import { LatencyHistogram } from "@/core/stats/histogram";
import { insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { ensureDemoPrice, getCostReport, listPrices, removePrice, setPrice, DEMO_HOURLY_USD } from "./cost-service";
import { setModelSlo } from "./models-service";
import { hardwareClassOf, runtimeSignatureOf } from "./profiling-service";
import type { ServiceCaller } from "./users-service";

const tag = Math.random().toString(36).slice(2, 8);
const topology = {
  sockets: [
    {
      id: 0,
      nodes: [
        {
          id: 0,
          cores: [
            { socket: 0, node: 0, coreId: 0, cpus: [0] },
            { socket: 0, node: 0, coreId: 1, cpus: [1] },
          ],
        },
      ],
    },
  ],
};
let admin: ServiceCaller;
let agentId = "";
let hardwareClass = "";
let testedModelId = "";
let deploymentId = "";
let untestedDeploymentId = "";
const now = new Date();
const minute = (agoMin: number) => new Date(Math.floor(now.getTime() / 60_000) * 60_000 - agoMin * 60_000);

/** A packrat-loadgen/1 report of an open run: `ok` of `intended` requests at `latencyMs`, `okPerS` completed. */
function report(model: string, latencyMs: number, ok: number, intended: number, okPerS: number) {
  const h = LatencyHistogram.create();
  h.recordMs(latencyMs, ok);
  return {
    format: "packrat-loadgen/1",
    startedAt: now.toISOString(),
    finishedAt: now.toISOString(),
    target: "http://127.0.0.1",
    model,
    mode: "open",
    config: {},
    open: {
      measured: { intended, sent: intended, ok, dropped: 0 },
      windowMs: 10_000,
      offeredPerS: intended / 10,
      okPerS,
      latency: { ...h.summary(), histogram: h.encode() },
      timeline: [],
    },
  };
}

async function deployed(name: string, generation: number) {
  const prisma = db();
  const sha = randomUUID().replace(/-/g, "").padEnd(64, "0");
  await prisma.artifact.create({ data: { sha256: sha, bytes: 1n } });
  const model = await prisma.model.create({ data: { name: `${name}-${tag}`, sloDeadlineMs: 50, sloQuantile: 0.99 } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha, source: "upload", analysis: {} },
  });
  const d = await prisma.deployment.create({
    data: {
      agentId,
      modelVersionId: version.id,
      cpus: [0, 1],
      generation,
      observedGeneration: generation,
      state: "serving",
    },
  });
  // Packrat's running plan: two one-thread instances, B = 2.
  await prisma.deploymentGeneration.create({
    data: {
      deploymentId: d.id,
      generation,
      modelVersionId: version.id,
      label: "packrat ⟨2, 1, 1⟩",
      plan: { instances: [{ count: 2, threads: 1, batch: 1 }], batchSize: 2, batchTimeoutMs: 0, warmupIterations: 0 },
    },
  });
  return { model, version, deployment: d };
}

beforeAll(async () => {
  const prisma = db();
  admin = { user: await insertTestUser(prisma, "admin"), requestId: `cost-${tag}` };
  const agent = await prisma.agent.create({
    data: {
      hostName: `cost-${tag}`,
      agentVersion: "test",
      protocolVersion: 1,
      bootId: randomUUID(),
      topology,
      allowedCpus: [0, 1],
      cpuModel: `cost cpu ${tag}`,
      memoryBytes: BigInt(1e9),
      ortVersion: "1.30.0",
    },
  });
  agentId = agent.id;
  hardwareClass = hardwareClassOf(agent);

  const tested = await deployed("tested", 2);
  testedModelId = tested.model.id;
  deploymentId = tested.deployment.id;
  untestedDeploymentId = (await deployed("untested", 1)).deployment.id;
  const loadTest = (generation: number, body: ReturnType<typeof report>) =>
    prisma.loadTest.create({
      data: {
        jobId: randomUUID(),
        deploymentId,
        agentId,
        modelVersionId: tested.version.id,
        modelName: tested.model.name,
        spec: { mode: "open", pattern: "constant", ratePerS: 10, durationS: 60, binary: true, batch: 1 },
        status: "done",
        generationAtStart: generation,
        generationAtEnd: generation,
        report: body,
        finishedAt: now,
      },
    });
  await loadTest(2, report(tested.model.name, 10, 400, 400, 40)); // meets p99 ≤ 50 ms at 40/s: the capacity
  await loadTest(2, report(tested.model.name, 80, 600, 600, 60)); // faster but misses the SLO
  await loadTest(1, report(tested.model.name, 10, 1000, 1000, 100)); // another generation: not the running one
  await prisma.metricsRollup.createMany({
    data: [
      {
        deploymentId,
        minute: minute(5),
        intervalMs: 60_000,
        requestsCompleted: 1200,
        requestsRejected: 30,
        requestsWithinSlo: 1100,
      },
      {
        deploymentId,
        minute: minute(4),
        intervalMs: 60_000,
        requestsCompleted: 600,
        requestsRejected: 0,
        requestsWithinSlo: 600,
      },
      {
        deploymentId,
        minute: minute(10 * 24 * 60),
        intervalMs: 60_000,
        requestsCompleted: 6000,
        requestsRejected: 0,
        requestsWithinSlo: 6000,
      },
    ],
  });
  // A complete profile in the deployment's conditions: L[1][1] = 10 ms runs Packrat's plan, L[2][2] = 30 ms is ⟨1, 2, 2⟩.
  const profile = await prisma.profile.create({
    data: {
      modelVersionId: tested.version.id,
      agentId,
      deploymentId,
      dimensions: {},
      hardwareClass,
      runtimeSignature: runtimeSignatureOf(agent),
      cores: 2,
      threads: [1, 2],
      batches: [1, 2],
      stoppingRule: {},
      status: "complete",
    },
  });
  const cell = (threads: number, batch: number, meanMs: number) => ({
    profileId: profile.id,
    threads,
    batch,
    meanMs,
    p50Ms: meanMs,
    p90Ms: meanMs,
    p99Ms: meanMs,
    stddevMs: 0,
    ciHalfWidthMs: 0,
    iterations: 10,
    stopReason: "ci",
    histogram: "",
  });
  await prisma.profileCell.createMany({ data: [cell(1, 1, 10), cell(1, 2, 18), cell(2, 1, 7), cell(2, 2, 30)] });
});

describe("hardware prices", () => {
  it("a demo price is seeded once, labelled, and an admin's price replaces it (audited)", async () => {
    expect(await ensureDemoPrice(agentId, { type: "system", label: "npm start" })).toBe(hardwareClass);
    expect(await ensureDemoPrice(agentId, { type: "system", label: "npm start" })).toBeNull();
    expect((await listPrices()).find((p) => p.hardwareClass === hardwareClass)).toMatchObject({
      hourlyUsd: DEMO_HOURLY_USD,
      demo: true,
      hosts: [`cost-${tag}`],
    });
    await setPrice(admin, { hardwareClass, hourlyUsd: 0.4, note: "list price" });
    expect((await listPrices()).find((p) => p.hardwareClass === hardwareClass)).toMatchObject({
      hourlyUsd: 0.4,
      demo: false,
      note: "list price",
    });
    const audit = await db().auditEvent.findFirstOrThrow({
      where: { action: "hardware_price.set", targetId: hardwareClass, actorId: admin.user.id },
    });
    expect(audit.before).toMatchObject({ hourlyUsd: DEMO_HOURLY_USD, demo: true });
    expect(audit.after).toMatchObject({ hourlyUsd: 0.4 });
  });

  it("refuses a price that is not a positive number, and removes one (audited)", async () => {
    await expect(setPrice(admin, { hardwareClass, hourlyUsd: -1 })).rejects.toThrow(
      /hourlyUsd must be a positive number/,
    );
    await setPrice(admin, { hardwareClass: `other ${tag}`, hourlyUsd: 2 });
    await removePrice(admin, { hardwareClass: `other ${tag}` });
    expect((await listPrices()).some((p) => p.hardwareClass === `other ${tag}`)).toBe(false);
    expect(await db().auditEvent.count({ where: { action: "hardware_price.remove", targetId: `other ${tag}` } })).toBe(
      1,
    );
    await expect(removePrice(admin, { hardwareClass: `other ${tag}` })).rejects.toThrow(/not found/);
  });
});

describe("goodput needs the agents to know the SLO", () => {
  it("setting a model's SLO moves the desired-state revision of each agent serving it", async () => {
    const before = (await db().agent.findUniqueOrThrow({ where: { id: agentId } })).revision;
    await setModelSlo(admin, {
      modelId: testedModelId,
      slo: { deadlineMs: 50, quantile: 0.99, ttftMs: null, tpotMs: null },
    });
    // The model has one deployment, on this agent: one bump.
    expect((await db().agent.findUniqueOrThrow({ where: { id: agentId } })).revision).toBe(before + 1);
  });
});

describe("the cost report", () => {
  // The prices above were set just now, after the rollups' minutes: date them back (demo price 40 days ago, $0.40
  // 20 days ago) so the whole period is priced at $0.40 (cost-price-history.int.test.ts covers prices changing).
  beforeAll(async () => {
    const history = await db().hardwarePriceChange.findMany({ where: { hardwareClass }, orderBy: { id: "asc" } });
    expect(history.map((h) => h.hourlyUsd)).toEqual([DEMO_HOURLY_USD, 0.4]);
    await db().hardwarePriceChange.update({
      where: { id: history[0]!.id },
      data: { effectiveFrom: minute(40 * 24 * 60) },
    });
    await db().hardwarePriceChange.update({
      where: { id: history[1]!.id },
      data: { effectiveFrom: minute(20 * 24 * 60) },
    });
  });

  it("equals planning core I on the stored inputs (7 days)", async () => {
    const r = await getCostReport({ period: "7d", hardwareClass, headroomMultiplier: 1.3, redundancyK: 1, now });
    const row = r.rows.find((x) => x.deploymentId === deploymentId)!;
    const hourlyCostUsd = 0.4;
    // Capacity: the 40/s run at generation 2 (the 60/s one missed the SLO, the 100/s one ran generation 1).
    expect(row.capacity?.ratePerS).toBe(40);
    expect(row.capacityCostPerMillionUsd).toBe(costPerMillionAtRateUsd({ hourlyCostUsd, throughputPerS: 40 }));
    // Goodput: the two recent minutes (the 10-day-old one is outside the period).
    expect(row.actual).toEqual(
      costReport({ hourlyCostUsd, windowS: 120, counts: { withinSlo: 1700, late: 100, rejected: 30, fallback: 0 } }),
    );
    expect(row.goodputPerHour).toBe(1700 * 30);
    // Peak: the busiest minute, (1200 + 30) / 60 s; replicas at the rated capacity, headroom 1.3, + 1.
    expect(row.peakPerS).toBeCloseTo(20.5, 10);
    const rated = replicasAtRatedCapacity({
      peakArrivalRatePerS: row.peakPerS!,
      ratedPerReplicaPerS: 40,
      headroomMultiplier: 1.3,
    });
    expect(row.replicas).toMatchObject({
      base: rated.baseReplicas,
      withHeadroom: rated.provisionedReplicas,
      total: rated.provisionedReplicas + 1,
    });
    expect(row.monthlyCostUsd).toBe(monthlyCostUsd({ replicas: rated.provisionedReplicas + 1, hourlyCostUsd }));
    // Saving: ⟨2, 1, 1⟩ at 10 ms (200/s) against ⟨1, 2, 2⟩ at 30 ms (66.7/s) from the same profile.
    expect(row.comparison).toMatchObject({ runningLatencyMs: 10, defaultLatencyMs: 30, batchSize: 2, cores: 2 });
    expect(row.saving?.costSavingPerMillionUsd).toBe(
      costPerMillionAtRateUsd({ hourlyCostUsd, throughputPerS: 2000 / 30 }) -
        costPerMillionAtRateUsd({ hourlyCostUsd, throughputPerS: 200 }),
    );
    // The untested model: not measured, no replicas, no monthly cost, still priced by its class.
    const untested = r.rows.find((x) => x.deploymentId === untestedDeploymentId)!;
    expect(untested.capacity).toBeNull();
    expect(untested.monthlyCostUsd).toBeNull();
    expect(untested.price?.hourlyUsd).toBe(hourlyCostUsd);
    // Totals: only the tested deployment reported.
    expect(r.totals.all.costUsd).toBeCloseTo(row.actual!.windowCostUsd, 12);
    expect(r.trend.length).toBeGreaterThan(0);
  });

  it("takes an entered peak, the 30-day period and a model filter from its input", async () => {
    const r = await getCostReport({
      period: "30d",
      modelId: testedModelId,
      peakPerS: { [deploymentId]: 100 },
      headroomMultiplier: 2,
      redundancyK: 0,
      now,
    });
    expect(r.rows.map((x) => x.deploymentId)).toEqual([deploymentId]);
    const row = r.rows[0]!;
    expect(row.usage).toMatchObject({ windowS: 180, withinSlo: 7700 });
    expect(row.replicas).toMatchObject({ base: 3, withHeadroom: 6, total: 6 }); // ⌈100/40⌉ = 3, × 2 = 6, + 0
    expect(row.monthlyCostUsd).toBe(monthlyCostUsd({ replicas: 6, hourlyCostUsd: 0.4 }));
  });

  it("finds the break-even between two priced classes from a measured and an entered capacity (F-68)", async () => {
    await setPrice(admin, { hardwareClass: `gpu ${tag}`, hourlyUsd: 4 });
    const r = await getCostReport({
      period: "7d",
      headroomMultiplier: 1.3,
      redundancyK: 1,
      breakEven: { modelId: testedModelId, classA: hardwareClass, classB: `gpu ${tag}`, capacityB: 2000 },
      now,
    });
    const be = r.breakEven!;
    if (!("result" in be)) throw new Error(`no break-even: ${be.error}`);
    expect(be.large.hardwareClass).toBe(`gpu ${tag}`);
    expect(be.small).toMatchObject({ capacityPerS: 40, capacitySource: "measured" });
    expect(be.result.continuousPerS).toBeCloseTo((4 / 0.4) * 40, 9);
    const missing = await getCostReport({
      period: "7d",
      headroomMultiplier: 1.3,
      redundancyK: 1,
      breakEven: { modelId: testedModelId, classA: hardwareClass, classB: `gpu ${tag}` },
      now,
    });
    expect(missing.breakEven).toMatchObject({ error: expect.stringMatching(/no measured capacity on gpu/) });
  });
});
