// Agent tokens: the identity of worker agents on the REST agent API. A token is 32 random bytes, shown once
// at creation; only its SHA-256 is stored. Creating and revoking are audited in the same transaction. A
// revoked token fails on its very next request (every request looks the token up), and a long-poll it holds open
// ends at once: each revocation NOTIFYs packrat_agent_token_revoked with the token's id (notifyTokenRevoked).
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Prisma, PrismaClient } from "@/generated/prisma/client";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import type pg from "pg";
import { db } from "@/server/db/client";
import { pgPool } from "@/server/db/pg-pool";
import { invalidInput, notFound } from "@/server/errors/domain-errors";
import type { ServiceCaller } from "./users-service";

export const AGENT_TOKEN_PREFIX = "prat_";
// Enough of the token to tell tokens apart in a list; 8 of its 43 random characters give away 48 of 256 bits.
const SHOWN_CHARACTERS = AGENT_TOKEN_PREFIX.length + 8;

export const hashAgentToken = (token: string) => createHash("sha256").update(token, "utf8").digest("hex");

export function generateAgentToken(): { token: string; tokenHash: string; prefix: string } {
  const token = `${AGENT_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`;
  return { token, tokenHash: hashAgentToken(token), prefix: token.slice(0, SHOWN_CHARACTERS) };
}

export interface AgentTokenRow {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  createdBy: string | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export interface AgentIdentity {
  tokenId: string;
  name: string;
  createdAt: Date;
  /** The agent this token registered as (null until its first registration). */
  agentId: string | null;
}

export async function listAgentTokens(prisma: PrismaClient = db()): Promise<AgentTokenRow[]> {
  const tokens = await prisma.agentToken.findMany({
    orderBy: [{ revokedAt: { sort: "desc", nulls: "first" } }, { createdAt: "desc" }],
    include: { createdBy: { select: { email: true } } },
  });
  return tokens.map((t) => ({
    id: t.id,
    name: t.name,
    prefix: t.prefix,
    createdAt: t.createdAt,
    createdBy: t.createdBy?.email ?? null,
    lastUsedAt: t.lastUsedAt,
    revokedAt: t.revokedAt,
  }));
}

/** Creates a token; the returned `token` is the only time anyone sees it. */
export async function createAgentToken(
  caller: ServiceCaller,
  input: { name: string },
  prisma: PrismaClient = db(),
): Promise<AgentTokenRow & { token: string }> {
  const name = input.name.trim();
  if (!name) throw invalidInput("name must not be empty", { field: "name" });
  const { token, tokenHash, prefix } = generateAgentToken();
  return prisma.$transaction(async (tx) => {
    const row = await tx.agentToken.create({
      data: { id: randomUUID(), name, tokenHash, prefix, createdById: caller.user.id },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "agent_token.create",
      target: { type: "agent_token", id: row.id, label: name },
      after: { name, prefix },
      requestId: caller.requestId,
    });
    return {
      id: row.id,
      name,
      prefix,
      createdAt: row.createdAt,
      createdBy: caller.user.email,
      lastUsedAt: null,
      revokedAt: null,
      token,
    };
  });
}

/** In the revoking transaction: long-polls held with these tokens end when it commits, on every replica. */
export async function notifyTokenRevoked(tx: Prisma.TransactionClient, tokenIds: readonly string[]): Promise<void> {
  for (const id of tokenIds) await tx.$executeRaw`SELECT pg_notify('packrat_agent_token_revoked', ${id})`;
}

/** Whether the token is revoked (or gone) now: the check a long-poll makes once it listens for revocations. */
export async function agentTokenRevoked(tokenId: string, prisma: PrismaClient = db()): Promise<boolean> {
  const row = await prisma.agentToken.findUnique({ where: { id: tokenId }, select: { revokedAt: true } });
  return !row || row.revokedAt !== null;
}

export async function revokeAgentToken(
  caller: ServiceCaller,
  input: { id: string },
  prisma: PrismaClient = db(),
): Promise<{ revokedAt: Date }> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.agentToken.findUnique({ where: { id: input.id } });
    if (!before) throw notFound("agent token", input.id);
    if (before.revokedAt) return { revokedAt: before.revokedAt }; // already revoked: nothing changes, nothing to audit
    const after = await tx.agentToken.update({
      where: { id: before.id },
      data: { revokedAt: new Date(), revokedById: caller.user.id },
    });
    await notifyTokenRevoked(tx, [before.id]);
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "agent_token.revoke",
      target: { type: "agent_token", id: before.id, label: before.name },
      before: { name: before.name, prefix: before.prefix, revokedAt: null },
      after: { name: after.name, prefix: after.prefix, revokedAt: after.revokedAt },
      requestId: caller.requestId,
    });
    return { revokedAt: after.revokedAt! };
  });
}

/** How stale a token's last-used stamp may get: written at most this often, not on every request. */
export const TOKEN_LAST_USED_RESOLUTION_MS = 60_000;

/**
 * The token looked up by its hash (not revoked) and its last-used stamp written when older than
 * TOKEN_LAST_USED_RESOLUTION_MS, in one statement: a read on the common path (a write per request would be a row
 * version and WAL per heartbeat and poll); of concurrent requests past the minute, one writes; a revoke meanwhile
 * keeps its own stamp. Timestamps are UTC in `timestamp` columns, as Prisma writes them.
 */
const AUTHENTICATE_SQL = `
WITH bearer AS (
  SELECT id, name, "createdAt", "agentId", "lastUsedAt" FROM agent_token WHERE "tokenHash" = $1 AND "revokedAt" IS NULL
), stamp AS (
  UPDATE agent_token t SET "lastUsedAt" = $2::timestamp
  FROM bearer
  WHERE t.id = bearer.id AND t."revokedAt" IS NULL AND (bearer."lastUsedAt" IS NULL OR bearer."lastUsedAt" < $3::timestamp)
)
SELECT id, name, "createdAt" AT TIME ZONE 'UTC' AS "createdAt", "agentId" FROM bearer`;

/** The agent a bearer token belongs to, or null (unknown or revoked). Records the use, at most once a minute. */
export async function authenticateAgentToken(token: string, pool: pg.Pool = pgPool()): Promise<AgentIdentity | null> {
  if (!token.startsWith(AGENT_TOKEN_PREFIX)) return null;
  const now = Date.now();
  // Named: each pooled connection parses and plans it once.
  const { rows } = await pool.query<{ id: string; name: string; createdAt: Date; agentId: string | null }>({
    name: "packrat_authenticate_agent_token",
    text: AUTHENTICATE_SQL,
    values: [
      hashAgentToken(token),
      new Date(now).toISOString(),
      new Date(now - TOKEN_LAST_USED_RESOLUTION_MS).toISOString(),
    ],
  });
  const row = rows[0];
  if (!row) return null;
  return { tokenId: row.id, name: row.name, createdAt: row.createdAt, agentId: row.agentId };
}
