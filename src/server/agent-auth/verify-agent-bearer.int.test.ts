// Agent tokens end to end on the agent API's test route: created (shown once, stored hashed), accepted as a
// bearer token, refused at once after revocation; a user's session cookie is never accepted there.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as whoami } from "@/app/api/agent/v1/whoami/route";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, createTestAgentToken, insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { hashAgentToken, listAgentTokens, revokeAgentToken } from "@/server/services/agent-tokens-service";

beforeAll(() => usePasswordHasherForTests(cheapHasher));
afterAll(() => usePasswordHasherForTests(undefined));

const call = (headers: Record<string, string>) =>
  whoami(new Request("http://localhost:3999/api/agent/v1/whoami", { headers }));

describe("agent tokens on /api/agent/v1", () => {
  it("a new token authenticates, is stored only as its SHA-256, and records its last use", async () => {
    const sre = await insertTestUser(db(), "sre");
    const created = await createTestAgentToken({ user: sre, requestId: "req-tok" }, { name: "  host-a  " });
    // prat_ + 32 random bytes in base64url (43 characters).
    expect(created.token).toMatch(/^prat_[\w-]{43}$/);
    expect(created.prefix).toBe(created.token.slice(0, 13));
    const row = await db().agentToken.findUniqueOrThrow({ where: { id: created.id } });
    expect(row.tokenHash).toBe(hashAgentToken(created.token));
    expect(JSON.stringify(row)).not.toContain(created.token);
    expect(row.lastUsedAt).toBeNull();

    const response = await call({ authorization: `Bearer ${created.token}` });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ tokenId: created.id, name: "host-a" });
    expect((await db().agentToken.findUniqueOrThrow({ where: { id: created.id } })).lastUsedAt).toBeInstanceOf(Date);
    const listed = (await listAgentTokens()).find((t) => t.id === created.id);
    expect(listed).toMatchObject({ name: "host-a", createdBy: sre.email, revokedAt: null });
    expect(listed).not.toHaveProperty("token");
    expect(listed).not.toHaveProperty("tokenHash");
    const event = await db().auditEvent.findFirstOrThrow({
      where: { action: "agent_token.create", targetId: created.id },
    });
    expect(event).toMatchObject({ actorId: sre.id, targetLabel: "host-a", requestId: "req-tok" });
    expect(JSON.stringify(event.after)).not.toContain(created.token);
  });

  it("a revoked token fails on its very next request; revoking is audited once", async () => {
    const admin = await insertTestUser(db(), "admin");
    const { id, token } = await createTestAgentToken({ user: admin, requestId: "r" }, { name: "host-b" });
    expect((await call({ authorization: `Bearer ${token}` })).status).toBe(200);
    await revokeAgentToken({ user: admin, requestId: "r" }, { id });
    const refused = await call({ authorization: `Bearer ${token}` });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer/);
    await revokeAgentToken({ user: admin, requestId: "r" }, { id }); // again: a no-op
    expect(await db().auditEvent.count({ where: { action: "agent_token.revoke", targetId: id } })).toBe(1);
  });

  it("refuses no token, a malformed header, an unknown token, and a user's session cookie", async () => {
    const user = await insertTestUser(db(), "admin");
    const session = await db().session.create({
      data: {
        id: crypto.randomUUID(),
        token: "session-token-xyz",
        userId: user.id,
        expiresAt: new Date(Date.now() + 3_600_000),
      },
    });
    const cases: Array<Record<string, string>> = [
      {},
      { authorization: "Basic dXNlcjpwYXNz" },
      { authorization: "Bearer prat_unknownunknownunknownunknownunknownunknown" },
      { authorization: `Bearer ${session.token}` },
      { cookie: `packrat.session_token=${session.token}` },
    ];
    for (const headers of cases) {
      const response = await call(headers);
      expect({ headers, status: response.status }).toEqual({ headers, status: 401 });
    }
  });
});
