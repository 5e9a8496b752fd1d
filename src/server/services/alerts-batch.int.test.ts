// Many alerts opening and resolving in one evaluator round (a fleet's agents going offline together): each alert
// gets its own audit event and webhook delivery, in a few statements whatever their number, and held alerts are
// rewritten together when their message changed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { evaluateAlertsOnce } from "./alerts-evaluation-service";
import { testEnv } from "../../../test/test-env";

// More than one batch of the evaluator's (500 rows a statement).
const FLEET = 520;
const OFFLINE_AFTER_MS = 15_000;
const hostPrefix = `batch-${Date.now()}-`;
let ids: string[] = [];

beforeAll(async () => {
  Object.assign(testEnv, { AGENT_OFFLINE_AFTER_MS: String(OFFLINE_AFTER_MS) });
  resetEnvForTests();
  const prisma = db();
  await prisma.alertDelivery.deleteMany({});
  await prisma.alert.deleteMany({});
  await prisma.alertWebhook.deleteMany({});
  await prisma.alertWebhook.create({ data: { id: "default", url: "http://127.0.0.1:9/hook", minSeverity: "warning" } });
  const seen = new Date(Date.now() - 60_000);
  await prisma.agent.createMany({
    data: Array.from({ length: FLEET }, (_, i) => ({
      hostName: `${hostPrefix}${i}`,
      agentVersion: "test",
      protocolVersion: 1,
      bootId: `boot-${i}`,
      topology: {},
      allowedCpus: [0],
      cpuModel: "test",
      memoryBytes: 1n << 30n,
      ortVersion: "test",
      lastHeartbeatAt: seen,
      registeredAt: seen,
    })),
  });
  ids = (await prisma.agent.findMany({ where: { hostName: { startsWith: hostPrefix } }, select: { id: true } })).map(
    (a) => a.id,
  );
});

afterAll(async () => {
  await db().alertWebhook.deleteMany({});
});

describe("alerts in bulk", () => {
  it("a fleet gone offline opens an alert each, audited and delivered; back, they all resolve", async () => {
    const prisma = db();
    const now = new Date();
    // Agents other test files left behind may raise alerts of their own: only this fleet's are counted.
    expect((await evaluateAlertsOnce(prisma, { now })).evaluated).toBe(true);
    const alerts = await prisma.alert.findMany({ where: { rule: "agent_offline", objectId: { in: ids } } });
    expect(alerts).toHaveLength(FLEET);
    expect(new Set(alerts.map((a) => a.objectId))).toEqual(new Set(ids));
    const alertIds = alerts.map((a) => a.id);
    const opened = await prisma.auditEvent.findMany({
      where: { action: "alert.open", targetId: { in: alertIds } },
    });
    expect(opened).toHaveLength(FLEET);
    expect(
      opened.every((e) => e.targetLabel === `agent_offline: ${alerts.find((a) => a.id === e.targetId)!.objectLabel}`),
    ).toBe(true);
    const fired = await prisma.alertDelivery.findMany({ where: { event: "fired", alertId: { in: alertIds } } });
    expect(new Set(fired.map((d) => d.alertId))).toEqual(new Set(alerts.map((a) => a.id)));

    // Still offline a minute later: nothing new opens, every held alert's lastSeenAt moves on.
    const later = new Date(now.getTime() + 61_000);
    await evaluateAlertsOnce(prisma, { now: later });
    expect(await prisma.alert.count({ where: { rule: "agent_offline", objectId: { in: ids } } })).toBe(FLEET);
    const held = await prisma.alert.findMany({ where: { id: { in: alertIds } } });
    expect(held.every((a) => a.lastSeenAt.getTime() === later.getTime() && a.state === "open")).toBe(true);
    // Their message says the silence grew (each row its own new text, written in a batch).
    const before = new Map(alerts.map((a) => [a.id, a.message]));
    expect(held.every((a) => a.message !== before.get(a.id) && /^no heartbeat for \d+ s/.test(a.message))).toBe(true);

    // Back: each resolves by itself, audited and delivered.
    const back = new Date(later.getTime() + 1_000);
    await prisma.agent.updateMany({ where: { id: { in: ids } }, data: { lastHeartbeatAt: back } });
    await evaluateAlertsOnce(prisma, { now: back });
    const resolved = await prisma.alert.findMany({ where: { id: { in: alertIds } } });
    expect(resolved.every((a) => a.state === "resolved" && a.resolvedAt?.getTime() === back.getTime())).toBe(true);
    const resolves = await prisma.auditEvent.findMany({
      where: { action: "alert.resolve", targetId: { in: alertIds } },
    });
    expect(resolves).toHaveLength(FLEET);
    expect(resolves.every((e) => (e.before as { state?: string }).state === "open")).toBe(true);
    expect(await prisma.alertDelivery.count({ where: { event: "resolved", alertId: { in: alertIds } } })).toBe(FLEET);
  });
});
