// The planning pages' live data (issue #18) end to end: a real attached agent serves the tiny CNN, the test sends
// it traffic, the heartbeats fold histograms and busy time into the rollups, and the service's stage times and
// operating point are checked against those stored rollups. Heartbeat shortened to 300 ms.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import type { PrismaClient } from "@/generated/prisma/client";
import { resetEnvForTests } from "@/server/env";
import { insertTestUser } from "@/server/auth/test-support";
import { LatencyHistogram } from "@/core/stats/histogram";
import { rollupPartColumn, rollupStageParts } from "@/contracts/deployment-columns";
import { buildTinyCnn } from "@/modelzoo/tiny-models";
import {
  agentApiRoutes,
  serveOnNewAgent,
  startRouteServer,
  stopProcess,
  until,
  type TestAgent,
} from "../../../test/control-plane-harness";
import { sendOipTraffic } from "../../../test/oip-traffic";
import {
  MEASURED_STAGE_HISTOGRAMS,
  listLiveDeployments,
  measuredStages,
  operatingPoint,
} from "./planning-live-service";
import type { ServiceCaller } from "./users-service";
import { testEnv } from "../../../test/test-env";

const dataDir = mkdtempSync(join(tmpdir(), "packrat-planning-live-"));
chmodSync(dataDir, 0o755);
let server: Awaited<ReturnType<typeof startRouteServer>>;
let agent: TestAgent;
let deploymentId: string;
const children: ChildProcess[] = [];
const REQUESTS = 120;

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    AGENT_LOST_TIMEOUT_MS: "20000",
    PACKRAT_DATA_DIR: dataDir,
  });
  resetEnvForTests();
  const prisma = db();
  const admin: ServiceCaller = { user: await insertTestUser(prisma, "admin"), requestId: "planning-live" };
  server = await startRouteServer(await agentApiRoutes());
  ({ agent, deploymentId } = await serveOnNewAgent({
    controlPlaneUrl: server.url,
    admin,
    dataDir,
    tokenName: "planning-live",
    modelName: "tiny-cnn-live",
    modelBytes: buildTinyCnn({ seed: 12, producerVersion: "packrat-test" }),
    children,
  }));
});

afterAll(async () => {
  for (const child of children) await stopProcess(child);
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const rollupsOf = (prisma: Pick<PrismaClient, "metricsRollup"> = db()) =>
  prisma.metricsRollup.findMany({ where: { deploymentId } });
/** The minutes' histograms, one part per metrics message. */
const partsOf = async (prisma: Pick<PrismaClient, "metricsRollupPart"> = db()) =>
  (await prisma.metricsRollupPart.findMany({ where: { deploymentId } })).map((p) => rollupPartColumn.read(p.encoded));
// The agent keeps heartbeating (every 300 ms, adding its interval to the current minute's rollup even without
// traffic), so the test's own reading of the rollups and the service's must come from one snapshot.
const inOneSnapshot = <T>(read: (prisma: PrismaClient) => Promise<T>): Promise<T> =>
  db().$transaction((tx) => read(tx as unknown as PrismaClient), { isolationLevel: "RepeatableRead" });

describe("planning live data", () => {
  it("lists the deployment, serving, labelled by model, version and host", async () => {
    const listed = (await listLiveDeployments()).find((d) => d.id === deploymentId);
    expect(listed?.state).toBe("serving");
    expect(listed?.label).toMatch(/^tiny-cnn-live v1 on /);
  });

  it("a window without traffic measures nothing: every stage stays entered, no operating point", async () => {
    const before = await measuredStages({ deploymentId, windowMinutes: 15 });
    expect(before.stages).toEqual({});
    const point = await operatingPoint({ deploymentId, windowMinutes: 15 });
    expect(point.window.requests).toBe(0);
    expect(point.meanMs).toBeNull();
    expect(point.serviceTimeMs).toBeNull();
  });

  it("after traffic, each stage's p50 and p99 are the percentiles of the stored histograms, merged over the window", async () => {
    await sendOipTraffic(agent.url, "tiny-cnn-live", REQUESTS, 4, 0.5);
    // Every request has reached a rollup once the completed counters add up to what was sent.
    await until(
      async () => (await rollupsOf()).reduce((s, r) => s + r.requestsCompleted, 0) >= REQUESTS || undefined,
      "the heartbeats to report the traffic",
    );
    const { parts, result } = await inOneSnapshot(async (prisma) => ({
      parts: await partsOf(prisma),
      result: await measuredStages({ deploymentId, windowMinutes: 15 }, prisma),
    }));
    expect(result.window.requests).toBe(REQUESTS);
    expect(result.window.from).not.toBeNull();
    expect(result.window.to!.getTime() - result.window.from!.getTime()).toBeGreaterThanOrEqual(60_000);
    expect(Object.keys(result.stages).sort()).toEqual(MEASURED_STAGE_HISTOGRAMS.map((m) => m.stage).sort());
    for (const { stage, histogram } of MEASURED_STAGE_HISTOGRAMS) {
      const stored = LatencyHistogram.merge(rollupStageParts(parts, histogram).map((e) => LatencyHistogram.decode(e)));
      expect(stored.count, stage).toBe(REQUESTS);
      expect(result.stages[stage], stage).toEqual({
        p50Ms: stored.percentileMs(50),
        p99Ms: stored.percentileMs(99),
        count: REQUESTS,
      });
      expect(result.stages[stage]!.p99Ms).toBeGreaterThanOrEqual(result.stages[stage]!.p50Ms);
    }
    // Inference is real compute: some time, never nothing.
    expect(result.stages.inference!.p50Ms).toBeGreaterThan(0);
  });

  it("the operating point: λ and ρ from the rollups' counters, the time in the server from its histogram", async () => {
    const { rollups, parts, point } = await inOneSnapshot(async (prisma) => ({
      rollups: await rollupsOf(prisma),
      parts: await partsOf(prisma),
      point: await operatingPoint({ deploymentId, windowMinutes: 15 }, prisma),
    }));
    const intervalMs = rollups.reduce((s, r) => s + r.intervalMs, 0);
    const busyMs = rollups.reduce((s, r) => s + r.busyMs, 0);
    expect(busyMs).toBeGreaterThan(0);
    expect(point.arrivalRatePerS).toBeCloseTo((REQUESTS * 1000) / intervalMs, 9);
    expect(point.utilization).toBeCloseTo(busyMs / intervalMs, 9);
    expect(point.utilization).toBeGreaterThan(0);
    expect(point.utilization).toBeLessThanOrEqual(1);
    expect(point.serviceTimeMs).toBeCloseTo(busyMs / REQUESTS, 9);
    const system = LatencyHistogram.merge(rollupStageParts(parts, "system").map((e) => LatencyHistogram.decode(e)));
    expect(point.meanMs).toBe(system.summary().meanMs);
    expect(point.p99Ms).toBe(system.percentileMs(99));
    // Time in the server covers the compute: its p99 is at least the inference p50.
    const stages = await measuredStages({ deploymentId, windowMinutes: 15 });
    expect(point.p99Ms!).toBeGreaterThanOrEqual(stages.stages.inference!.p50Ms);
  });

  it("a removed or unknown deployment is not found", async () => {
    await expect(measuredStages({ deploymentId: "nope", windowMinutes: 5 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
    await expect(operatingPoint({ deploymentId: "nope", windowMinutes: 5 })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});
