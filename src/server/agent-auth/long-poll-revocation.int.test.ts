// A long-poll held open by an agent ends when its token is revoked, answering 401 as the agent's next request
// would, instead of holding on (and then answering as if the token were good) until the hold runs out.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as desired } from "@/app/api/agent/v1/desired/route";
import { GET as nextJob } from "@/app/api/agent/v1/jobs/next/route";
import { POST as register } from "@/app/api/agent/v1/register/route";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { resetEnvForTests } from "@/server/env";
import { decommissionAgent } from "@/server/services/deployments-service";
import { revokeAgentToken } from "@/server/services/agent-tokens-service";
import { testEnv } from "../../../test/test-env";

const ORIGIN = "http://localhost:3999";

beforeAll(() => {
  usePasswordHasherForTests(cheapHasher);
  // Long enough that a poll still held when the token is revoked is plainly not one that ran out.
  Object.assign(testEnv, { LONG_POLL_HOLD_MS: "20000", LOG_LEVEL: "error" });
  resetEnvForTests();
});
afterAll(() => {
  usePasswordHasherForTests(undefined);
  delete testEnv.LONG_POLL_HOLD_MS;
  resetEnvForTests();
});

async function registeredAgent(name: string) {
  const admin = await insertTestUser(db(), "admin");
  const { id, token } = await createTestAgentToken({ user: admin, requestId: "r" }, { name });
  const body = {
    protocolVersion: 1,
    agentVersion: "0.1.0",
    hostName: name,
    bootId: crypto.randomUUID(),
    topology: { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] },
    allowedCpus: [0],
    cpuModel: "test",
    memoryBytes: 1e9,
    ortVersion: "1.30.0",
  };
  const registered = await register(
    new Request(`${ORIGIN}/api/agent/v1/register`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify(body),
    }),
  );
  expect(registered.status).toBe(200);
  const { agentId } = (await registered.json()) as { agentId: string };
  return { admin, tokenId: id, token, agentId };
}

/** A last use long ago: the poll's authentication stamps it anew (the stamp is written at most once a minute). */
async function staleLastUse(tokenId: string): Promise<Date> {
  const long = new Date(0);
  await db().agentToken.update({ where: { id: tokenId }, data: { lastUsedAt: long } });
  return long;
}

/** Resolves once the poll has authenticated (the token's last use moved past `since`). */
async function authenticated(tokenId: string, since: Date | null) {
  for (;;) {
    const row = await db().agentToken.findUniqueOrThrow({ where: { id: tokenId }, select: { lastUsedAt: true } });
    if (row.lastUsedAt && (!since || row.lastUsedAt > since)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("long-polls end on revocation", () => {
  it("GET /desired answers 401 when the token is revoked while it waits", async () => {
    const { admin, tokenId, token, agentId } = await registeredAgent("poll-host-a");
    const { revision } = await db().agent.findUniqueOrThrow({ where: { id: agentId }, select: { revision: true } });
    const before = await staleLastUse(tokenId);
    const polling = desired(
      new Request(`${ORIGIN}/api/agent/v1/desired?after=${revision}`, {
        headers: { authorization: `Bearer ${token}` },
      }),
    );
    await authenticated(tokenId, before);
    await revokeAgentToken({ user: admin, requestId: "r" }, { id: tokenId });
    const response = await polling;
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "UNAUTHORIZED" } });
  });

  it("GET /jobs/next answers 401 when the agent is decommissioned (its tokens revoked) while it waits", async () => {
    const { admin, tokenId, token, agentId } = await registeredAgent("poll-host-b");
    const before = await staleLastUse(tokenId);
    const polling = nextJob(
      new Request(`${ORIGIN}/api/agent/v1/jobs/next`, { headers: { authorization: `Bearer ${token}` } }),
    );
    await authenticated(tokenId, before);
    await decommissionAgent({ user: admin, requestId: "r" }, { agentId });
    expect((await polling).status).toBe(401);
  });
});
