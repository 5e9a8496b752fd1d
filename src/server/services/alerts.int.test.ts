// Alerts with a real agent over real HTTP (issue #17): the evaluator (its real periodic loop, intervals shortened)
// raises "agent offline" once a stopped agent's heartbeats are older than AGENT_OFFLINE_AFTER_MS, an SRE acknowledges
// it, and it resolves by itself when the agent returns; a webhook receiver on loopback gets both events, the first
// try refused (HTTP 500) and retried with backoff. Everything is audited.
import type { ChildProcess } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlertEvaluator } from "@/server/jobs/alert-evaluator";
import { createCaller } from "@/server/api/root";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { freePort } from "../../../apps/agent/src/test-agent-process";
import {
  agentApiRoutes,
  startAgentProcess,
  startRouteServer,
  stopProcess,
  until,
  type TestAgent,
} from "../../../test/control-plane-harness";
import { createAgentToken } from "./agent-tokens-service";
import { ALERT_EVALUATOR_LOCK, evaluateAlertsOnce } from "./alerts-evaluation-service";
import { testEnv } from "../../../test/test-env";

// Ten heartbeats (300 ms apart): a loaded host that delays a few must not look like a dead agent.
const OFFLINE_AFTER_MS = 3000;
const dataDir = mkdtempSync(join(tmpdir(), "packrat-alerts-"));
chmodSync(dataDir, 0o755);
let server: Awaited<ReturnType<typeof startRouteServer>>;
let receiver: Server;
let receiverUrl: string;
const received: Array<{
  headers: IncomingHttpHeaders;
  body: { event: string; alert: { id: string; rule: string; object: { id: string } } };
}> = [];
const evaluator = new AlertEvaluator({ intervalMs: 200 });
let agent: TestAgent | undefined;
const children: ChildProcess[] = [];
let sre: SessionUser, manager: SessionUser;
let agentId: string;
let token: string;
let port: number;

const as = (user: SessionUser) => createCaller(contextFor(user));
const offlineAlerts = () =>
  db().alert.findMany({ where: { rule: "agent_offline", objectId: agentId }, orderBy: { firstSeenAt: "asc" } });
const start = () => {
  agent = startAgentProcess(server.url, token, join(dataDir, "agent"), port);
  children.push(agent.process);
};

beforeAll(async () => {
  Object.assign(testEnv, {
    HEARTBEAT_INTERVAL_MS: "300",
    LONG_POLL_HOLD_MS: "1000",
    PACKRAT_DATA_DIR: dataDir,
    AGENT_OFFLINE_AFTER_MS: String(OFFLINE_AFTER_MS),
    ALERT_WEBHOOK_BACKOFF_MS: "100",
    ALERT_WEBHOOK_BACKOFF_MAX_MS: "400",
    ALERT_WEBHOOK_TIMEOUT_MS: "2000",
    // The receiver is on loopback, which the outbound guard refuses unless allowed.
    PACKRAT_OUTBOUND_ALLOW: "127.0.0.1",
  });
  resetEnvForTests();
  const prisma = db();
  await prisma.alertDelivery.deleteMany({});
  await prisma.alert.deleteMany({});
  await prisma.alertWebhook.deleteMany({});
  // Agents other tests left behind would raise their own offline alerts: this test watches only its agent.
  [sre, manager] = await Promise.all([insertTestUser(prisma, "sre"), insertTestUser(prisma, "manager")]);
  const admin = await insertTestUser(prisma, "admin");
  // The receiver refuses every delivery's first try (HTTP 500) and accepts the retry.
  receiver = createServer((req, res) => {
    let text = "";
    req.on("data", (chunk) => {
      text += chunk;
    });
    req.on("end", () => {
      received.push({ headers: req.headers, body: JSON.parse(text) });
      res.writeHead(req.headers["x-packrat-attempt"] === "1" ? 500 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  server = await startRouteServer(await agentApiRoutes());
  const createdToken = await createAgentToken({ user: admin, requestId: "t" }, { name: "alerts" });
  token = createdToken.token;
  port = await freePort();
  start();
  // Agents of earlier test files registered from this same host: find ours by its token.
  const registered = await until(
    () => prisma.agent.findFirst({ where: { tokens: { some: { id: createdToken.id } } } }),
    "registration",
  );
  agentId = registered.id;
  await until(
    async () => (await prisma.agent.findUniqueOrThrow({ where: { id: agentId } })).lastHeartbeatAt,
    "a first heartbeat",
  );
  evaluator.start();
});

afterAll(async () => {
  await evaluator.stop();
  for (const child of children) await stopProcess(child);
  await server?.close();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
  rmSync(dataDir, { recursive: true, force: true });
});

describe("alerts", () => {
  it("an SRE sets the webhook (audited, the secret-bearing URL kept out of the log); others may not", async () => {
    await expect(
      as(manager).alerts.setWebhook({ url: receiverUrl, enabled: true, minSeverity: "warning" }),
    ).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(
      as(sre).alerts.setWebhook({ url: "ftp://example.com/x", enabled: true, minSeverity: "warning" }),
    ).rejects.toThrow(/http/);
    await as(sre).alerts.setWebhook({ url: `${receiverUrl}?secret=s3cret`, enabled: true, minSeverity: "warning" });
    expect(await as(sre).alerts.webhook()).toMatchObject({ url: `${receiverUrl}?secret=s3cret`, enabled: true });
    const event = await db().auditEvent.findFirstOrThrow({
      where: { action: "alert_webhook.update" },
      orderBy: { id: "desc" },
    });
    expect(JSON.stringify(event.after)).not.toContain("s3cret");
  });

  it("a running agent has no offline alert; stopped, it raises one within the heartbeat window; an SRE acknowledges it", async () => {
    // Several evaluations with the agent heartbeating: nothing for it.
    const rounds = evaluator.rounds;
    await until(async () => evaluator.rounds >= rounds + 3, "three evaluations");
    expect(await offlineAlerts()).toEqual([]);

    await stopProcess(agent!.process, "SIGKILL");
    const stoppedAt = Date.now();
    const [alert] = await until(async () => {
      const a = await offlineAlerts();
      return a.length ? a : undefined;
    }, "the agent-offline alert");
    expect(alert).toMatchObject({
      state: "open",
      severity: "critical",
      objectType: "agent",
      objectId: agentId,
      resolvedAt: null,
    });
    // Raised only once the last heartbeat was older than AGENT_OFFLINE_AFTER_MS (no earlier than the rule allows).
    const lastHeartbeat = (await db().agent.findUniqueOrThrow({ where: { id: agentId } })).lastHeartbeatAt!;
    expect(alert!.firstSeenAt.getTime() - lastHeartbeat.getTime()).toBeGreaterThan(OFFLINE_AFTER_MS);
    expect(alert!.firstSeenAt.getTime()).toBeGreaterThanOrEqual(stoppedAt - 1000);
    expect(alert!.message).toMatch(/^no heartbeat for \d+ s \(offline after 3 s\)$/);

    // Everyone reads it and sees the count; only an SRE acknowledges.
    const listed = await as(manager).alerts.list({ filter: "active" });
    expect(listed.find((a) => a.id === alert!.id)).toMatchObject({
      rule: "agent_offline",
      state: "open",
      object: { type: "agent", id: agentId, href: "/agents" },
    });
    expect((await as(manager).alerts.count()).open).toBeGreaterThanOrEqual(1);
    await expect(as(manager).alerts.acknowledge({ id: alert!.id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await as(sre).alerts.acknowledge({ id: alert!.id, comment: "looking" });
    await expect(as(sre).alerts.acknowledge({ id: alert!.id })).rejects.toThrow(/acknowledged, not open/);
    // Still one alert while the condition holds (refreshed, not re-opened).
    const before = (await db().alert.findUniqueOrThrow({ where: { id: alert!.id } })).lastSeenAt;
    await until(
      async () => (await db().alert.findUniqueOrThrow({ where: { id: alert!.id } })).lastSeenAt > before,
      "a refresh",
    );
    expect(await offlineAlerts()).toHaveLength(1);
    expect((await offlineAlerts())[0]).toMatchObject({
      state: "acknowledged",
      acknowledgedById: sre.id,
      comment: "looking",
    });
  });

  it("the webhook receiver gets the alert (the refused first try retried)", async () => {
    const [alert] = await offlineAlerts();
    const fired = await until(
      async () =>
        received.find(
          (r) => r.body.event === "fired" && r.body.alert.id === alert!.id && r.headers["x-packrat-attempt"] === "2",
        ),
      "the retried delivery",
    );
    expect(fired.body).toMatchObject({
      source: "packrat",
      event: "fired",
      alert: { rule: "agent_offline", severity: "critical", object: { type: "agent", id: agentId } },
    });
    expect(fired.headers["content-type"]).toBe("application/json");
    const delivery = await until(async () => {
      const d = await db().alertDelivery.findFirst({ where: { alertId: alert!.id, event: "fired" } });
      return d?.status === "delivered" ? d : undefined;
    }, "the delivery to be recorded");
    expect(delivery.attempts).toBe(2);
    const log = delivery.log as Array<{ httpStatus?: number; error?: string }>;
    expect(log.map((a) => a.httpStatus)).toEqual([500, 204]);
    expect(log[0]!.error).toBe("HTTP 500");
    const listed = await as(sre).alerts.deliveries({});
    expect(listed.find((d) => d.id === delivery.id)).toMatchObject({
      status: "delivered",
      origin: new URL(receiverUrl).origin,
    });
  });

  it("the agent returns: the alert resolves by itself, and the receiver hears that too", async () => {
    const [alert] = await offlineAlerts();
    start();
    const resolved = await until(async () => {
      const a = await db().alert.findUniqueOrThrow({ where: { id: alert!.id } });
      return a.state === "resolved" ? a : undefined;
    }, "the alert to resolve");
    expect(resolved.resolvedById).toBeNull();
    const back = (await db().agent.findUniqueOrThrow({ where: { id: agentId } })).lastHeartbeatAt!;
    expect(resolved.resolvedAt!.getTime()).toBeGreaterThanOrEqual(back.getTime() - 1000);
    await until(
      async () =>
        received.find(
          (r) => r.body.event === "resolved" && r.body.alert.id === alert!.id && r.headers["x-packrat-attempt"] === "2",
        ),
      "the resolved event",
    );
    const actions = (await db().auditEvent.findMany({ where: { targetId: alert!.id }, orderBy: { id: "asc" } })).map(
      (e) => e.action,
    );
    expect(actions).toEqual(["alert.open", "alert.acknowledge", "alert.resolve"]);
    const listed = await as(manager).alerts.list({ filter: "resolved" });
    expect(listed.find((a) => a.id === alert!.id)).toMatchObject({
      state: "resolved",
      resolvedBy: "automatically (condition cleared)",
    });
  });

  it("an SRE resolves an alert by hand; a second evaluator round is a no-op while another holds the lock", async () => {
    const row = await db().alert.create({
      data: {
        key: `queue_rejections:deployment:test-${Date.now()}`,
        rule: "queue_rejections",
        severity: "warning",
        objectType: "deployment",
        objectId: "gone",
        objectLabel: "gone",
        message: "m",
      },
    });
    await as(sre).alerts.resolve({ id: row.id, comment: "fixed upstream" });
    expect(await db().alert.findUniqueOrThrow({ where: { id: row.id } })).toMatchObject({
      state: "resolved",
      resolvedById: sre.id,
    });
    await expect(as(sre).alerts.resolve({ id: row.id })).rejects.toThrow(/already resolved/);
    // Another replica evaluating (it holds the lock): this one skips its round.
    await db().$transaction(async (tx) => {
      await tx.$executeRaw`SELECT pg_advisory_xact_lock(${ALERT_EVALUATOR_LOCK}::bigint)`;
      expect(await evaluateAlertsOnce(db())).toEqual({ evaluated: false, opened: 0, resolved: 0, holding: 0 });
    });
    expect((await evaluateAlertsOnce(db())).evaluated).toBe(true);
  });
});
