// Enrollment tokens let many hosts join with one secret: registering with one creates a new agent and hands it
// its own agent token. Named, revocable, maximum uses optional; they expire after 30 days unless the creator asks
// for another date or for none (null); only the SHA-256 is stored; audited.
import { randomBytes, randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "@/generated/prisma/client";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import { hashAgentToken } from "./agent-tokens-service";
import type { ServiceCaller } from "./users-service";

export const ENROLLMENT_TOKEN_PREFIX = "prat_enroll_";
/** How long an enrollment token lives when its creator names no expiry. */
export const ENROLLMENT_TOKEN_DEFAULT_TTL_MS = 30 * 24 * 3_600_000;

export interface EnrollmentTokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  expiresAt: Date | null;
  maxUses: number | null;
  uses: number;
  revokedAt: Date | null;
}

export async function listEnrollmentTokens(prisma: PrismaClient = db()): Promise<EnrollmentTokenRow[]> {
  return prisma.enrollmentToken.findMany({
    orderBy: [{ revokedAt: { sort: "desc", nulls: "first" } }, { createdAt: "desc" }],
    select: {
      id: true,
      name: true,
      prefix: true,
      createdAt: true,
      expiresAt: true,
      maxUses: true,
      uses: true,
      revokedAt: true,
    },
  });
}

export async function createEnrollmentToken(
  caller: ServiceCaller,
  input: { name: string; expiresAt?: Date | null; maxUses?: number },
  prisma: PrismaClient = db(),
): Promise<EnrollmentTokenRow & { token: string }> {
  const name = input.name.trim();
  if (!name) throw invalidInput("name must not be empty", { field: "name" });
  // Unset: 30 days from now; null: never (asked for explicitly).
  const expiresAt =
    input.expiresAt === undefined ? new Date(Date.now() + ENROLLMENT_TOKEN_DEFAULT_TTL_MS) : input.expiresAt;
  if (expiresAt && expiresAt.getTime() <= Date.now())
    throw invalidInput("expiresAt must be in the future", { field: "expiresAt" });
  const token = `${ENROLLMENT_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const prefix = token.slice(0, ENROLLMENT_TOKEN_PREFIX.length + 8);
  return prisma.$transaction(async (tx) => {
    const row = await tx.enrollmentToken.create({
      data: {
        id: randomUUID(),
        name,
        tokenHash: hashAgentToken(token),
        prefix,
        expiresAt,
        maxUses: input.maxUses ?? null,
        createdById: caller.user.id,
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "enrollment_token.create",
      target: { type: "enrollment_token", id: row.id, label: name },
      after: { name, prefix, expiresAt: row.expiresAt, maxUses: row.maxUses },
      requestId: caller.requestId,
    });
    return {
      id: row.id,
      name,
      prefix,
      createdAt: row.createdAt,
      expiresAt: row.expiresAt,
      maxUses: row.maxUses,
      uses: 0,
      revokedAt: null,
      token,
    };
  });
}

export async function revokeEnrollmentToken(
  caller: ServiceCaller,
  input: { id: string },
  prisma: PrismaClient = db(),
): Promise<{ revokedAt: Date }> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.enrollmentToken.findUnique({ where: { id: input.id } });
    if (!before) throw notFound("enrollment token", input.id);
    if (before.revokedAt) return { revokedAt: before.revokedAt };
    const after = await tx.enrollmentToken.update({ where: { id: before.id }, data: { revokedAt: new Date() } });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "enrollment_token.revoke",
      target: { type: "enrollment_token", id: before.id, label: before.name },
      before: { revokedAt: null },
      after: { revokedAt: after.revokedAt },
      requestId: caller.requestId,
    });
    return { revokedAt: after.revokedAt! };
  });
}

/** Takes one use of an enrollment token inside `tx`, or says why it cannot be used. */
export async function consumeEnrollmentToken(
  tx: Prisma.TransactionClient,
  token: string,
): Promise<{ id: string; name: string }> {
  const row = await tx.enrollmentToken.findUnique({ where: { tokenHash: hashAgentToken(token) } });
  const refuse = (why: string) => new DomainError("UNAUTHORIZED", `enrollment token refused: ${why}`);
  if (!row) throw refuse("unknown");
  if (row.revokedAt) throw refuse("revoked");
  if (row.expiresAt && row.expiresAt.getTime() <= Date.now()) throw refuse("expired");
  // Conditional increment: two registrations racing for the last use cannot both win.
  const taken = await tx.enrollmentToken.updateMany({
    where: { id: row.id, revokedAt: null, ...(row.maxUses !== null ? { uses: { lt: row.maxUses } } : {}) },
    data: { uses: { increment: 1 } },
  });
  if (taken.count === 0) throw refuse(`all ${row.maxUses} uses taken`);
  return { id: row.id, name: row.name };
}
