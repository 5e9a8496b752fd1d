// Who may delete a profile: its creator, an sre or an admin; another ML engineer is refused and the profile stays.
// Through the tRPC router, so the role gate and the service's ownership check are tested together.
import { randomUUID } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { createCaller } from "@/server/api/root";
import { contextFor, insertTestUser } from "@/server/auth/test-support";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";

let versionId: string;
let owner: SessionUser, otherMl: SessionUser, sre: SessionUser, admin: SessionUser, manager: SessionUser;

const as = (user: SessionUser) => createCaller(contextFor(user));

async function profileBy(user: SessionUser): Promise<string> {
  const profile = await db().profile.create({
    data: {
      modelVersionId: versionId,
      agentId: randomUUID(),
      hardwareClass: "x",
      runtimeSignature: "y",
      cores: 1,
      threads: [1],
      batches: [1],
      stoppingRule: {},
      status: "complete",
      createdById: user.id,
    },
  });
  return profile.id;
}

beforeAll(async () => {
  const prisma = db();
  const sha = randomUUID().replaceAll("-", "").padEnd(64, "0");
  await prisma.artifact.create({ data: { sha256: sha, bytes: 1n } });
  const model = await prisma.model.create({
    data: { name: `ownership-${randomUUID().slice(0, 8)}`, sloDeadlineMs: 20, sloQuantile: 0.99 },
  });
  versionId = (
    await prisma.modelVersion.create({
      data: { modelId: model.id, number: 1, artifactSha256: sha, source: "upload", analysis: {} },
    })
  ).id;
  owner = await insertTestUser(prisma, "ml_engineer");
  otherMl = await insertTestUser(prisma, "ml_engineer");
  sre = await insertTestUser(prisma, "sre");
  admin = await insertTestUser(prisma, "admin");
  manager = await insertTestUser(prisma, "manager");
});

describe("deleting a profile", () => {
  it("another ML engineer is refused (FORBIDDEN) and the profile and audit log are untouched", async () => {
    const id = await profileBy(owner);
    await expect(as(otherMl).profiles.delete({ profileId: id })).rejects.toMatchObject({ code: "FORBIDDEN" });
    expect(await db().profile.count({ where: { id } })).toBe(1);
    expect(await db().auditEvent.count({ where: { action: "profile.delete", targetId: id } })).toBe(0);
  });

  it("a manager is refused at the gate", async () => {
    const id = await profileBy(owner);
    await expect(as(manager).profiles.delete({ profileId: id })).rejects.toMatchObject({ code: "FORBIDDEN" });
  });

  it("its creator, an sre and an admin may delete it, each audited", async () => {
    for (const who of [owner, sre, admin]) {
      const id = await profileBy(owner);
      await expect(as(who).profiles.delete({ profileId: id })).resolves.toEqual({ deleted: true });
      expect(await db().profile.count({ where: { id } })).toBe(0);
      expect(
        await db().auditEvent.findFirstOrThrow({ where: { action: "profile.delete", targetId: id } }),
      ).toMatchObject({ actorId: who.id });
    }
  });
});
