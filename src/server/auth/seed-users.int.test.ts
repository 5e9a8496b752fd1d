// The first users at start: demo users on an empty database, or the configured admin once; each case on a
// database of its own.
import { resolve } from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from "vitest";
import { PrismaClient } from "@/generated/prisma/client";
import { migrate } from "@/server/db/migrator";
import { createDatabase } from "../../../test/find-postgres";
import { usePasswordHasherForTests } from "./password";
import { DEMO_PASSWORD, ensureInitialUsers, SeedConfigError } from "./seed-users";
import { cheapHasher } from "./test-support";

const cleanups: Array<() => Promise<void>> = [];
beforeAll(() => usePasswordHasherForTests(cheapHasher));
afterAll(() => usePasswordHasherForTests(undefined));
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

async function freshDatabase(): Promise<PrismaClient> {
  const database = await createDatabase(inject("adminDatabaseUrl"), "packrat_seed");
  await migrate(database.url, resolve("prisma/migrations"));
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 4 }) });
  cleanups.push(async () => {
    await prisma.$disconnect();
    await database.drop();
  });
  return prisma;
}

const passwordOf = async (prisma: PrismaClient, email: string) =>
  (await prisma.account.findFirstOrThrow({ where: { user: { email }, providerId: "credential" } })).password!;

describe("initial users", () => {
  it("seeds the four demo users (one per role, password packrat-demo) on an empty database, once", async () => {
    const prisma = await freshDatabase();
    const lines = await ensureInitialUsers(prisma, { demoUsers: true });
    expect(lines).toHaveLength(4);
    const users = await prisma.user.findMany({ orderBy: { email: "asc" } });
    expect(users.map((u) => [u.email, u.role, u.active])).toEqual([
      ["admin@example.com", "admin", true],
      ["manager@example.com", "manager", true],
      ["ml@example.com", "ml_engineer", true],
      ["sre@example.com", "sre", true],
    ]);
    for (const u of users)
      expect(await cheapHasher.verify(await passwordOf(prisma, u.email), DEMO_PASSWORD)).toBe(true);
    expect(await prisma.auditEvent.count({ where: { action: "user.create", actorType: "system" } })).toBe(4);
    expect(await ensureInitialUsers(prisma, { demoUsers: true })).toEqual([]);
    expect(await prisma.user.count()).toBe(4);
  });

  it("seeds nothing when users exist, even if none is a demo user", async () => {
    const prisma = await freshDatabase();
    await ensureInitialUsers(prisma, {
      demoUsers: false,
      adminEmail: "root@corp.example",
      adminPassword: "correct-horse-battery",
    });
    expect(await ensureInitialUsers(prisma, { demoUsers: true })).toEqual([]);
    expect((await prisma.user.findMany()).map((u) => u.email)).toEqual(["root@corp.example"]);
  });

  it("without demo users and without an admin, a missing PACKRAT_ADMIN_EMAIL or PASSWORD is one line naming it", async () => {
    const prisma = await freshDatabase();
    const missingEmail = ensureInitialUsers(prisma, { demoUsers: false, adminPassword: "correct-horse-battery" });
    await expect(missingEmail).rejects.toBeInstanceOf(SeedConfigError);
    await expect(missingEmail).rejects.toThrow(/^PACKRAT_ADMIN_EMAIL is required[^\n]*$/);
    await expect(ensureInitialUsers(prisma, { demoUsers: false, adminEmail: "root@corp.example" })).rejects.toThrow(
      /^PACKRAT_ADMIN_PASSWORD is required[^\n]*$/,
    );
    expect(await prisma.user.count()).toBe(0);
  });

  it("creates the configured admin once; later starts need no admin variables", async () => {
    const prisma = await freshDatabase();
    expect(
      await ensureInitialUsers(prisma, {
        demoUsers: false,
        adminEmail: "Root@Corp.example",
        adminPassword: "correct-horse-battery",
      }),
    ).toEqual(["created admin root@corp.example (admin)"]);
    expect(await cheapHasher.verify(await passwordOf(prisma, "root@corp.example"), "correct-horse-battery")).toBe(true);
    expect(await ensureInitialUsers(prisma, { demoUsers: false })).toEqual([]);
    expect(await prisma.user.count()).toBe(1);
  });

  it("two replicas starting together seed exactly once", async () => {
    const prisma = await freshDatabase();
    const [a, b] = await Promise.all([
      ensureInitialUsers(prisma, { demoUsers: true }),
      ensureInitialUsers(prisma, { demoUsers: true }),
    ]);
    expect(a.length + b.length).toBe(4);
    expect(await prisma.user.count()).toBe(4);
  });
});
