// Users, as an admin manages them: create, change role, deactivate or reactivate, reset a password; and each user's
// own password change. Each change and its audit event commit in one transaction. A role change, a deactivation and
// a password reset delete the user's sessions in that same transaction, so they take effect on the user's next
// request; a user's own password change deletes every session but the one it was made from.
import { randomUUID } from "node:crypto";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { MIN_PASSWORD_LENGTH, passwords } from "@/server/auth/password";
import { consumeSignInAttempt, recordSignInSuccess, signInLimits } from "@/server/auth/sign-in-throttle";
import type { Role } from "@/core/security/roles";
import type { SessionUser } from "@/server/auth/session";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";

export interface ServiceCaller {
  user: SessionUser;
  requestId: string;
}

export interface UserSummary {
  id: string;
  email: string;
  name: string;
  role: Role;
  active: boolean;
}

export interface UserRow extends UserSummary {
  createdAt: Date;
  /** Unexpired sessions: how many browsers are signed in as this user. */
  activeSessions: number;
}

type Tx = Prisma.TransactionClient;

// Serializes the changes that could leave no active admin (two admins demoting each other at once).
const ADMIN_CHANGE_LOCK = "packrat:users:admin-change";

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw invalidInput(`password must be at least ${MIN_PASSWORD_LENGTH} characters`, { field: "password" });
  }
}

const auditView = (u: { email: string; name: string; role: Role; active: boolean }) => ({
  email: u.email,
  name: u.name,
  role: u.role,
  active: u.active,
});

/** Inserts a user with a credential account (better-auth's shape: providerId "credential", accountId = user id). */
export async function insertUserWithPassword(
  tx: Tx,
  input: { email: string; name: string; role: Role; passwordHash: string },
): Promise<UserSummary> {
  const id = randomUUID();
  const user = await tx.user.create({
    data: {
      id,
      email: normalizeEmail(input.email),
      name: input.name.trim(),
      role: input.role,
      active: true,
      accounts: { create: { id: randomUUID(), accountId: id, providerId: "credential", password: input.passwordHash } },
    },
  });
  return { id: user.id, email: user.email, name: user.name, role: user.role, active: user.active };
}

export async function listUsers(prisma: PrismaClient = db()): Promise<UserRow[]> {
  const now = new Date();
  const users = await prisma.user.findMany({
    orderBy: [{ active: "desc" }, { email: "asc" }],
    include: { _count: { select: { sessions: { where: { expiresAt: { gt: now } } } } } },
  });
  return users.map((u) => ({
    id: u.id,
    email: u.email,
    name: u.name,
    role: u.role,
    active: u.active,
    createdAt: u.createdAt,
    activeSessions: u._count.sessions,
  }));
}

export async function createUser(
  caller: ServiceCaller,
  input: { email: string; name: string; role: Role; password: string },
  prisma: PrismaClient = db(),
): Promise<UserSummary> {
  checkPassword(input.password);
  const passwordHash = await passwords.hash(input.password); // ≈150 ms: outside the transaction
  try {
    return await prisma.$transaction(async (tx) => {
      const user = await insertUserWithPassword(tx, { ...input, passwordHash });
      await recordAudit(tx, {
        actor: userActor(caller.user),
        action: "user.create",
        target: { type: "user", id: user.id, label: user.email },
        after: auditView(user),
        requestId: caller.requestId,
      });
      return user;
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") {
      throw conflict(`a user with email ${normalizeEmail(input.email)} already exists`);
    }
    throw error;
  }
}

async function lockedUser(tx: Tx, userId: string) {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${ADMIN_CHANGE_LOCK}))`;
  const user = await tx.user.findUnique({ where: { id: userId } });
  if (!user) throw notFound("user", userId);
  return user;
}

async function ensureAnotherActiveAdmin(tx: Tx, userId: string, what: string): Promise<void> {
  const others = await tx.user.count({ where: { role: "admin", active: true, id: { not: userId } } });
  if (others === 0)
    throw new DomainError("PRECONDITION_FAILED", `cannot ${what}: at least one active admin must remain`);
}

export async function setUserRole(
  caller: ServiceCaller,
  input: { userId: string; role: Role },
  prisma: PrismaClient = db(),
): Promise<UserSummary> {
  return prisma.$transaction(async (tx) => {
    const before = await lockedUser(tx, input.userId);
    if (before.role === input.role) return summary(before);
    if (before.role === "admin" && before.active)
      await ensureAnotherActiveAdmin(tx, before.id, "demote the last admin");
    const after = await tx.user.update({ where: { id: before.id }, data: { role: input.role } });
    await tx.session.deleteMany({ where: { userId: before.id } });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "user.role_change",
      target: { type: "user", id: before.id, label: before.email },
      before: { email: before.email, role: before.role },
      after: { email: after.email, role: after.role },
      requestId: caller.requestId,
    });
    return summary(after);
  });
}

export async function setUserActive(
  caller: ServiceCaller,
  input: { userId: string; active: boolean },
  prisma: PrismaClient = db(),
): Promise<UserSummary> {
  return prisma.$transaction(async (tx) => {
    const before = await lockedUser(tx, input.userId);
    if (before.active === input.active) return summary(before);
    if (!input.active && before.role === "admin")
      await ensureAnotherActiveAdmin(tx, before.id, "deactivate the last admin");
    const after = await tx.user.update({ where: { id: before.id }, data: { active: input.active } });
    if (!input.active) await tx.session.deleteMany({ where: { userId: before.id } });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: input.active ? "user.activate" : "user.deactivate",
      target: { type: "user", id: before.id, label: before.email },
      before: { email: before.email, active: before.active },
      after: { email: after.email, active: after.active },
      requestId: caller.requestId,
    });
    return summary(after);
  });
}

export async function resetUserPassword(
  caller: ServiceCaller,
  input: { userId: string; password: string },
  prisma: PrismaClient = db(),
): Promise<void> {
  checkPassword(input.password);
  const passwordHash = await passwords.hash(input.password);
  await prisma.$transaction(async (tx) => {
    const user = await tx.user.findUnique({ where: { id: input.userId } });
    if (!user) throw notFound("user", input.userId);
    const updated = await tx.account.updateMany({
      where: { userId: user.id, providerId: "credential" },
      data: { password: passwordHash },
    });
    if (updated.count === 0) {
      await tx.account.create({
        data: {
          id: randomUUID(),
          accountId: user.id,
          providerId: "credential",
          userId: user.id,
          password: passwordHash,
        },
      });
    }
    await tx.session.deleteMany({ where: { userId: user.id } });
    // Never the hash: only that it happened, and to whom.
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "user.password_reset",
      target: { type: "user", id: user.id, label: user.email },
      after: { email: user.email },
      requestId: caller.requestId,
    });
  });
}

/**
 * A user changes their own password: the current one must match. Every other session of the user ends in the same
 * transaction (a thief signed in elsewhere is out); the session the change came from stays signed in.
 */
export async function changeOwnPassword(
  caller: ServiceCaller,
  input: { currentPassword: string; newPassword: string; keepSessionId: string | null; client: string },
  prisma: PrismaClient = db(),
): Promise<{ otherSessionsEnded: number }> {
  checkPassword(input.newPassword);
  if (input.newPassword === input.currentPassword)
    throw invalidInput("the new password must differ from the current one", { field: "newPassword" });
  // The current password is guessed no faster here than at sign-in: the same throttle, the same counts.
  const who = { email: caller.user.email, ip: input.client };
  const decision = await consumeSignInAttempt(prisma, signInLimits(), who, Date.now());
  if (!decision.allowed)
    throw new DomainError("RATE_LIMITED", `too many wrong passwords; try again in ${decision.retryAfterSeconds} s`);
  const account = await prisma.account.findFirst({ where: { userId: caller.user.id, providerId: "credential" } });
  if (!account?.password || !(await passwords.verify(account.password, input.currentPassword))) {
    await recordAudit(prisma, {
      actor: userActor(caller.user),
      action: "user.password_change_refused",
      target: { type: "user", id: caller.user.id, label: caller.user.email },
      after: { reason: "wrong current password" },
      requestId: caller.requestId,
    });
    throw invalidInput("the current password is not correct", { field: "currentPassword" });
  }
  await recordSignInSuccess(prisma, who);
  const passwordHash = await passwords.hash(input.newPassword);
  return prisma.$transaction(async (tx) => {
    // Only if nobody changed it in between (two tabs at once): the second change must prove the new password.
    const updated = await tx.account.updateMany({
      where: { id: account.id, password: account.password },
      data: { password: passwordHash },
    });
    if (updated.count === 0) throw conflict("the password was changed meanwhile; sign in again");
    const ended = await tx.session.deleteMany({
      where: { userId: caller.user.id, ...(input.keepSessionId ? { id: { not: input.keepSessionId } } : {}) },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "user.password_change",
      target: { type: "user", id: caller.user.id, label: caller.user.email },
      after: { email: caller.user.email, otherSessionsEnded: ended.count },
      requestId: caller.requestId,
    });
    return { otherSessionsEnded: ended.count };
  });
}

function summary(u: UserSummary): UserSummary {
  return { id: u.id, email: u.email, name: u.name, role: u.role, active: u.active };
}
