// The admin's user operations: each change and its audit event in one transaction; sessions revoked where
// the change must take effect at once; the last active admin cannot be removed.
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { usePasswordHasherForTests } from "@/server/auth/password";
import { cheapHasher, insertTestUser, uniqueEmail } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { DomainError } from "@/server/errors/domain-errors";
import { createUser, listUsers, resetUserPassword, setUserActive, setUserRole } from "./users-service";

beforeAll(() => usePasswordHasherForTests(cheapHasher));
afterAll(() => usePasswordHasherForTests(undefined));

async function addSession(userId: string): Promise<void> {
  await db().session.create({
    data: { id: randomUUID(), token: randomUUID(), userId, expiresAt: new Date(Date.now() + 3_600_000) },
  });
}

const domainCode = (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (e: unknown) => (e instanceof DomainError ? e.code : String(e)),
  );

describe("users service", () => {
  it("creates a user with a credential account and audits it in the same transaction", async () => {
    const admin = await insertTestUser(db(), "admin");
    const email = uniqueEmail("new");
    const created = await createUser(
      { user: admin, requestId: "req-create" },
      { email: `  ${email.toUpperCase()} `, name: " New Person ", role: "sre", password: "a-long-password-1" },
    );
    expect(created).toMatchObject({ email, name: "New Person", role: "sre", active: true });
    const account = await db().account.findFirstOrThrow({ where: { userId: created.id } });
    expect(account).toMatchObject({ providerId: "credential", accountId: created.id });
    expect(await cheapHasher.verify(account.password!, "a-long-password-1")).toBe(true);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: "user.create", targetId: created.id } });
    expect(event).toMatchObject({
      actorType: "user",
      actorId: admin.id,
      actorLabel: admin.email,
      targetLabel: email,
      requestId: "req-create",
      after: { email, role: "sre", active: true },
    });
    expect(JSON.stringify([event.before, event.after])).not.toContain("a-long-password-1");
    expect((await listUsers()).find((u) => u.id === created.id)).toMatchObject({ email, activeSessions: 0 });
  });

  it("refuses a duplicate email (CONFLICT) and a short password (INVALID_INPUT), auditing neither", async () => {
    const admin = await insertTestUser(db(), "admin");
    const existing = await insertTestUser(db(), "sre");
    const before = await db().auditEvent.count();
    expect(
      await domainCode(
        createUser(
          { user: admin, requestId: "r" },
          { email: existing.email, name: "x", role: "sre", password: "a-long-password-1" },
        ),
      ),
    ).toBe("CONFLICT");
    expect(
      await domainCode(
        createUser(
          { user: admin, requestId: "r" },
          { email: uniqueEmail("short"), name: "x", role: "sre", password: "11-chars-xx" },
        ),
      ),
    ).toBe("INVALID_INPUT");
    expect(await db().auditEvent.count()).toBe(before);
  });

  it("changes a role: sessions revoked, before/after audited; the same role again changes nothing", async () => {
    const admin = await insertTestUser(db(), "admin");
    const user = await insertTestUser(db(), "ml_engineer");
    await addSession(user.id);
    await addSession(user.id);
    expect((await listUsers()).find((u) => u.id === user.id)?.activeSessions).toBe(2);
    await setUserRole({ user: admin, requestId: "r" }, { userId: user.id, role: "sre" });
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
    const event = await db().auditEvent.findFirstOrThrow({ where: { action: "user.role_change", targetId: user.id } });
    expect(event).toMatchObject({ before: { role: "ml_engineer" }, after: { role: "sre" } });
    await setUserRole({ user: admin, requestId: "r" }, { userId: user.id, role: "sre" });
    expect(await db().auditEvent.count({ where: { action: "user.role_change", targetId: user.id } })).toBe(1);
  });

  it("deactivates (sessions revoked) and reactivates, each audited", async () => {
    const admin = await insertTestUser(db(), "admin");
    const user = await insertTestUser(db(), "manager");
    await addSession(user.id);
    await setUserActive({ user: admin, requestId: "r" }, { userId: user.id, active: false });
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
    await setUserActive({ user: admin, requestId: "r" }, { userId: user.id, active: true });
    const actions = (await db().auditEvent.findMany({ where: { targetId: user.id }, orderBy: { id: "asc" } })).map(
      (e) => e.action,
    );
    expect(actions).toEqual(["user.deactivate", "user.activate"]);
  });

  it("resets a password: the old one stops working, sessions end, and the audit holds no hash", async () => {
    const admin = await insertTestUser(db(), "admin");
    const user = await insertTestUser(db(), "sre", { password: "old-password-123" });
    await addSession(user.id);
    await resetUserPassword({ user: admin, requestId: "r" }, { userId: user.id, password: "new-password-456" });
    const account = await db().account.findFirstOrThrow({ where: { userId: user.id, providerId: "credential" } });
    expect(await cheapHasher.verify(account.password!, "new-password-456")).toBe(true);
    expect(await cheapHasher.verify(account.password!, "old-password-123")).toBe(false);
    expect(await db().session.count({ where: { userId: user.id } })).toBe(0);
    const event = await db().auditEvent.findFirstOrThrow({
      where: { action: "user.password_reset", targetId: user.id },
    });
    expect(JSON.stringify([event.before, event.after])).not.toContain(account.password!);
    expect(JSON.stringify([event.before, event.after])).not.toContain("new-password-456");
  });

  it("never leaves the system without an active admin", async () => {
    // Deactivate every other active admin first, so this one is the last.
    const last = await insertTestUser(db(), "admin");
    const others = await db().user.findMany({ where: { role: "admin", active: true, id: { not: last.id } } });
    await db().user.updateMany({ where: { id: { in: others.map((o) => o.id) } }, data: { active: false } });
    try {
      expect(await domainCode(setUserRole({ user: last, requestId: "r" }, { userId: last.id, role: "sre" }))).toBe(
        "PRECONDITION_FAILED",
      );
      expect(await domainCode(setUserActive({ user: last, requestId: "r" }, { userId: last.id, active: false }))).toBe(
        "PRECONDITION_FAILED",
      );
      // With a second active admin, either may be demoted — but then the other is the last again.
      const second = await insertTestUser(db(), "admin");
      await setUserRole({ user: second, requestId: "r" }, { userId: last.id, role: "sre" });
      expect(
        await domainCode(setUserActive({ user: second, requestId: "r" }, { userId: second.id, active: false })),
      ).toBe("PRECONDITION_FAILED");
    } finally {
      await db().user.updateMany({ where: { id: { in: others.map((o) => o.id) } }, data: { active: true } });
    }
  });

  it("answers NOT_FOUND for an unknown user", async () => {
    const admin = await insertTestUser(db(), "admin");
    expect(
      await domainCode(setUserRole({ user: admin, requestId: "r" }, { userId: "no-such-user", role: "sre" })),
    ).toBe("NOT_FOUND");
    expect(
      await domainCode(
        resetUserPassword({ user: admin, requestId: "r" }, { userId: "no-such-user", password: "a-long-password-1" }),
      ),
    ).toBe("NOT_FOUND");
  });
});
