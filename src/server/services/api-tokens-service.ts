// Personal API tokens: how the CLI and pipelines call the control plane (Authorization: Bearer) without a browser.
// A token is 32 random bytes, shown once at creation; only its SHA-256 is stored. It acts as its user with a role
// the user chose at creation, never above the user's own (a gate for R lets R and admin through, so a non-admin's
// token has the user's role and an admin's any role); the rule is checked again on every use, so a user demoted,
// deactivated or deleted takes the token's powers with them. Tokens expire (at most a year) and are revocable by
// their owner (or an admin); creating and revoking are audited in the same transaction.
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { PrismaClient } from "@/generated/prisma/client";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { isRole, roleSatisfies, type Role } from "@/core/security/roles";
import type { SessionUser } from "@/server/auth/session";
import { db } from "@/server/db/client";
import { DomainError, invalidInput, notFound } from "@/server/errors/domain-errors";
import type { ServiceCaller } from "./users-service";

export const API_TOKEN_PREFIX = "prpat_";
const SHOWN_CHARACTERS = API_TOKEN_PREFIX.length + 8;
export const MAX_TOKEN_DAYS = 365;

export const hashApiToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

/** Whether a request's Authorization header carries a personal API token (the dashboard-origin check does not apply). */
export function bearerApiToken(headers: Headers): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match && match[1]!.startsWith(API_TOKEN_PREFIX) ? match[1]! : null;
}

/** The roles a user may give a token: their own, or any for an admin. */
export const grantableRoles = (role: Role): Role[] =>
  role === "admin" ? ["ml_engineer", "sre", "manager", "admin"] : [role];

export interface ApiTokenRow {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Past its expiry (as of this answer). */
  expired: boolean;
}

const row = (t: {
  id: string;
  name: string;
  prefix: string;
  role: string;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): ApiTokenRow => ({
  id: t.id,
  name: t.name,
  prefix: t.prefix,
  role: t.role as Role,
  createdAt: t.createdAt,
  expiresAt: t.expiresAt,
  lastUsedAt: t.lastUsedAt,
  revokedAt: t.revokedAt,
  expired: t.expiresAt.getTime() <= Date.now(),
});

/** The caller's own tokens, live ones first. */
export async function listApiTokens(caller: ServiceCaller, prisma: PrismaClient = db()): Promise<ApiTokenRow[]> {
  const tokens = await prisma.apiToken.findMany({
    where: { userId: caller.user.id },
    orderBy: [{ revokedAt: { sort: "desc", nulls: "first" } }, { createdAt: "desc" }],
  });
  return tokens.map(row);
}

export interface CreateApiTokenInput {
  name: string;
  role: Role;
  expiresInDays: number;
}

/** Creates a token for the caller; the returned `token` is the only time anyone sees it. */
export async function createApiToken(
  caller: ServiceCaller,
  input: CreateApiTokenInput,
  prisma: PrismaClient = db(),
): Promise<ApiTokenRow & { token: string }> {
  // A token cannot mint tokens: its lifetime would outlive it. Tokens are made from a signed-in session.
  if (caller.user.apiToken)
    throw new DomainError("FORBIDDEN", "API tokens are created from the dashboard, not with another token");
  const name = input.name.trim();
  if (!name) throw invalidInput("name must not be empty", { field: "name" });
  if (!grantableRoles(caller.user.role).includes(input.role)) {
    throw new DomainError(
      "FORBIDDEN",
      `a token cannot have a role above yours: you are ${caller.user.role}, the token asks for ${input.role}`,
      { field: "role" },
    );
  }
  if (!Number.isInteger(input.expiresInDays) || input.expiresInDays < 1 || input.expiresInDays > MAX_TOKEN_DAYS) {
    throw invalidInput(`a token expires in 1 to ${MAX_TOKEN_DAYS} days`, { field: "expiresInDays" });
  }
  const token = `${API_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  const prefix = token.slice(0, SHOWN_CHARACTERS);
  const expiresAt = new Date(Date.now() + input.expiresInDays * 86_400_000);
  return prisma.$transaction(async (tx) => {
    const created = await tx.apiToken.create({
      data: {
        id: randomUUID(),
        userId: caller.user.id,
        name,
        tokenHash: hashApiToken(token),
        prefix,
        role: input.role,
        expiresAt,
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "api_token.create",
      target: { type: "api_token", id: created.id, label: name },
      after: { name, prefix, role: input.role, expiresAt },
      requestId: caller.requestId,
    });
    return { ...row(created), token };
  });
}

/** Revokes one of the caller's tokens (an admin may revoke anyone's). Revoking twice changes nothing. */
export async function revokeApiToken(
  caller: ServiceCaller,
  input: { id: string },
  prisma: PrismaClient = db(),
): Promise<{ revokedAt: Date }> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.apiToken.findUnique({ where: { id: input.id } });
    // Someone else's token is "not found" to a non-admin: its existence is not theirs to learn.
    if (!before || (before.userId !== caller.user.id && caller.user.role !== "admin"))
      throw notFound("API token", input.id);
    if (before.revokedAt) return { revokedAt: before.revokedAt };
    const after = await tx.apiToken.update({ where: { id: before.id }, data: { revokedAt: new Date() } });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "api_token.revoke",
      target: { type: "api_token", id: before.id, label: before.name },
      before: { name: before.name, prefix: before.prefix, role: before.role, revokedAt: null },
      after: { revokedAt: after.revokedAt },
      requestId: caller.requestId,
    });
    return { revokedAt: after.revokedAt! };
  });
}

/**
 * The user a bearer token acts as, with the token's role; null when the token is unknown, revoked, expired, its
 * user inactive, or its role no longer within the user's. Records the use.
 */
export async function authenticateApiToken(token: string, prisma: PrismaClient = db()): Promise<SessionUser | null> {
  if (!token.startsWith(API_TOKEN_PREFIX)) return null;
  const now = new Date();
  const rows = await prisma.apiToken.updateManyAndReturn({
    where: { tokenHash: hashApiToken(token), revokedAt: null, expiresAt: { gt: now } },
    data: { lastUsedAt: now },
    select: {
      id: true,
      name: true,
      role: true,
      user: { select: { id: true, email: true, name: true, role: true, active: true } },
    },
  });
  const found = rows[0];
  if (!found || !found.user.active || !isRole(found.user.role) || !isRole(found.role)) return null;
  if (!roleSatisfies(found.user.role, found.role)) return null;
  return {
    id: found.user.id,
    email: found.user.email,
    name: found.user.name,
    role: found.role,
    apiToken: { id: found.id, name: found.name },
  };
}
