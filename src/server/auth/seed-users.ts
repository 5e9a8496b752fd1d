// The first users, created at start (scripts/start.ts, after migrations). With PACKRAT_DEMO_USERS=true and
// no user at all: the four demo users. With false and no admin yet: the admin named by
// PACKRAT_ADMIN_EMAIL / PACKRAT_ADMIN_PASSWORD, once; a missing one stops start with one line naming it.
// Replicas starting together take an advisory lock, so exactly one of them seeds.
import { PrismaPg } from "@prisma/adapter-pg";
import { PrismaClient } from "@/generated/prisma/client";
import { recordAudit } from "@/server/audit/record-audit";
import { insertUserWithPassword } from "@/server/services/users-service";
import { passwords } from "./password";
import type { Role } from "@/core/security/roles";

export const DEMO_PASSWORD = "packrat-demo";

export const demoUsers: ReadonlyArray<{ email: string; name: string; role: Role }> = [
  { email: "admin@example.com", name: "Ada Admin", role: "admin" },
  { email: "sre@example.com", name: "Sam SRE", role: "sre" },
  { email: "ml@example.com", name: "Mia ML Engineer", role: "ml_engineer" },
  { email: "manager@example.com", name: "Max Manager", role: "manager" },
];

export class SeedConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SeedConfigError";
  }
}

export interface SeedOptions {
  demoUsers: boolean;
  adminEmail?: string;
  adminPassword?: string;
}

const SEED_LOCK = "packrat:seed-users";

/** Creates the first users if the database needs them; returns one line per user created. */
export async function ensureInitialUsers(prisma: PrismaClient, options: SeedOptions): Promise<string[]> {
  // Cheap check first: an already-seeded database costs one query and no password hashing.
  const needed = options.demoUsers
    ? (await prisma.user.count()) === 0
    : (await prisma.user.count({ where: { role: "admin", active: true } })) === 0;
  if (!needed) return [];
  let wanted: Array<{ email: string; name: string; role: Role; password: string }>;
  if (options.demoUsers) {
    wanted = demoUsers.map((u) => ({ ...u, password: DEMO_PASSWORD }));
  } else {
    if (!options.adminEmail)
      throw new SeedConfigError(
        "PACKRAT_ADMIN_EMAIL is required: PACKRAT_DEMO_USERS=false and the database has no active admin yet",
      );
    if (!options.adminPassword)
      throw new SeedConfigError(
        "PACKRAT_ADMIN_PASSWORD is required (at least 12 characters): PACKRAT_DEMO_USERS=false and the database has no active admin yet",
      );
    wanted = [{ email: options.adminEmail, name: "Administrator", role: "admin", password: options.adminPassword }];
  }
  const hashed = await Promise.all(wanted.map(async (u) => ({ ...u, passwordHash: await passwords.hash(u.password) })));
  return prisma.$transaction(async (tx) => {
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${SEED_LOCK}))`;
    // Checked again under the lock: another replica may have seeded meanwhile.
    const stillNeeded = options.demoUsers
      ? (await tx.user.count()) === 0
      : (await tx.user.count({ where: { role: "admin", active: true } })) === 0;
    if (!stillNeeded) return [];
    const lines: string[] = [];
    for (const u of hashed) {
      const existing = await tx.user.findUnique({ where: { email: u.email.toLowerCase() } });
      if (existing) {
        // The named admin exists but is not an active admin: say so rather than silently promote it.
        throw new SeedConfigError(
          `PACKRAT_ADMIN_EMAIL ${u.email} belongs to an existing user who is not an active admin; promote them in the database or choose another email`,
        );
      }
      const user = await insertUserWithPassword(tx, u);
      await recordAudit(tx, {
        actor: { type: "system", label: options.demoUsers ? "demo seed" : "start-up" },
        action: "user.create",
        target: { type: "user", id: user.id, label: user.email },
        after: { email: user.email, name: user.name, role: user.role, active: user.active },
      });
      lines.push(`created ${options.demoUsers ? "demo user" : "admin"} ${user.email} (${user.role})`);
    }
    return lines;
  });
}

/** For the start supervisor: its own short-lived client (Next's process has the long-lived one). */
export async function seedUsersAtStart(databaseUrl: string, options: SeedOptions): Promise<string[]> {
  const prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: 2 }) });
  try {
    return await ensureInitialUsers(prisma, options);
  } finally {
    await prisma.$disconnect();
  }
}
