// The alert webhook cannot be turned into a probe of the control plane's own network: saving a loopback or
// metadata URL is refused with a 400-class error, and a delivery whose target is (or has become) such an
// address is refused where it connects, recorded without any detail of the target, and not retried.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { DomainError } from "@/server/errors/domain-errors";
import { deliverDueAlerts, setAlertWebhook } from "./alert-webhook-service";
import { testEnv } from "../../../test/test-env";

let receiver: Server;
let receiverPort = 0;
let hits = 0;
let sre: SessionUser;
const options = { timeoutMs: 2_000, maxAttempts: 6, backoffMs: 100, backoffMaxMs: 400 };

beforeAll(async () => {
  delete testEnv.PACKRAT_OUTBOUND_ALLOW;
  resetEnvForTests();
  receiver = createServer((req, res) => {
    hits++;
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverPort = (receiver.address() as AddressInfo).port;
  sre = await insertTestUser(db(), "sre");
  await db().alertDelivery.deleteMany({});
  await db().alertWebhook.deleteMany({});
});
afterAll(async () => {
  await db().alertDelivery.deleteMany({});
  await db().alertWebhook.deleteMany({});
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  delete testEnv.PACKRAT_OUTBOUND_ALLOW;
  resetEnvForTests();
});

async function queued(url: string) {
  const alert = await db().alert.create({
    data: {
      key: `agent_offline:agent:guard-${Date.now()}-${Math.random()}`,
      rule: "agent_offline",
      severity: "critical",
      objectType: "agent",
      objectId: "a",
      objectLabel: "a",
      message: "m",
    },
  });
  return db().alertDelivery.create({
    data: { alertId: alert.id, event: "fired", url, payload: { source: "packrat" } },
  });
}

describe("alert webhook behind the outbound guard", () => {
  it.each([
    "http://127.0.0.1:5432/",
    "http://localhost:8000/v2/models",
    "http://169.254.169.254/latest/meta-data/",
    "http://[::1]:3000/",
    "http://10.0.0.5/hook",
  ])("refuses to save %s", async (url) => {
    const error = await setAlertWebhook(
      { user: sre, requestId: "t" },
      { url, enabled: true, minSeverity: "warning" },
    ).then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe("INVALID_INPUT");
    expect((error as Error).message).toMatch(/refused to connect .*PACKRAT_OUTBOUND_ALLOW/);
    expect(await db().alertWebhook.count()).toBe(0);
  });

  it("a delivery to a loopback port is refused at connect time: nothing sent, no status or timing kept, not retried", async () => {
    // As if saved while the name still resolved elsewhere, or before the guard: the row names a loopback target.
    const delivery = await queued(`http://127.0.0.1:${receiverPort}/hook`);
    const before = hits;
    await deliverDueAlerts(db(), options);
    const row = await db().alertDelivery.findUniqueOrThrow({ where: { id: delivery.id } });
    expect(hits).toBe(before);
    expect(row.status).toBe("failed");
    expect(row.attempts).toBe(1);
    expect(row.log).toEqual([
      { at: expect.any(String), ms: 0, error: "refused: loopback address (see PACKRAT_OUTBOUND_ALLOW)" },
    ]);
  });

  it("an address the operator allowed is delivered to", async () => {
    testEnv.PACKRAT_OUTBOUND_ALLOW = "127.0.0.1";
    resetEnvForTests();
    const delivery = await queued(`http://127.0.0.1:${receiverPort}/hook`);
    const before = hits;
    await deliverDueAlerts(db(), options);
    expect(hits).toBe(before + 1);
    expect(await db().alertDelivery.findUniqueOrThrow({ where: { id: delivery.id } })).toMatchObject({
      status: "delivered",
      attempts: 1,
    });
  });
});
