// Reading the audit log: newest first, filtered by actor, action, target and time range, one page at a time.
// Pages are keyed by id (a bigserial, so it orders events by insertion), not by offset: a page stays the
// same while new events arrive.
import type { PrismaClient, Prisma } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { invalidInput } from "@/server/errors/domain-errors";

export interface AuditFilter {
  /** Matches the actor's email or token name (substring, any case), or its id exactly. */
  actor?: string;
  action?: string;
  targetType?: string;
  /** Matches the target's email or name (substring, any case), or its id exactly. */
  target?: string;
  from?: Date;
  to?: Date;
  /** The last id of the previous page (older events follow it). */
  before?: string;
  limit?: number;
}

export interface AuditEventRow {
  id: string;
  at: Date;
  actorType: "user" | "agent" | "system" | "anonymous";
  actorId: string | null;
  actorLabel: string | null;
  action: string;
  targetType: string | null;
  targetId: string | null;
  targetLabel: string | null;
  before: unknown;
  after: unknown;
  requestId: string | null;
}

export const AUDIT_PAGE_SIZE = 25;

function parseCursor(value: string): bigint {
  if (!/^\d{1,19}$/.test(value)) throw invalidInput("before must be an audit event id", { field: "before" });
  return BigInt(value);
}

export async function listAuditEvents(
  filter: AuditFilter = {},
  prisma: PrismaClient = db(),
): Promise<{ events: AuditEventRow[]; nextBefore: string | null }> {
  const limit = filter.limit ?? AUDIT_PAGE_SIZE;
  const and: Prisma.AuditEventWhereInput[] = [];
  const text = (s?: string) => s?.trim() || undefined;
  const actor = text(filter.actor);
  if (actor) and.push({ OR: [{ actorLabel: { contains: actor, mode: "insensitive" } }, { actorId: actor }] });
  const action = text(filter.action);
  if (action) and.push({ action });
  const targetType = text(filter.targetType);
  if (targetType) and.push({ targetType });
  const target = text(filter.target);
  if (target) and.push({ OR: [{ targetLabel: { contains: target, mode: "insensitive" } }, { targetId: target }] });
  if (filter.from) and.push({ at: { gte: filter.from } });
  if (filter.to) and.push({ at: { lte: filter.to } });
  if (filter.before) and.push({ id: { lt: parseCursor(filter.before) } });
  // One row more than the page tells whether an older page exists.
  const rows = await prisma.auditEvent.findMany({ where: { AND: and }, orderBy: { id: "desc" }, take: limit + 1 });
  const page = rows.slice(0, limit);
  return {
    events: page.map((r) => ({ ...r, id: r.id.toString() })),
    nextBefore: rows.length > limit ? page[page.length - 1]!.id.toString() : null,
  };
}

/** The distinct actions and target types recorded so far, for the filter menus. */
export async function auditFilterOptions(
  prisma: PrismaClient = db(),
): Promise<{ actions: string[]; targetTypes: string[] }> {
  // SQL DISTINCT (Prisma's `distinct` would fetch every row and dedupe in memory).
  const [actions, targetTypes] = await Promise.all([
    prisma.$queryRaw<{ value: string }[]>`SELECT DISTINCT "action" AS value FROM "audit_event" ORDER BY 1`,
    prisma.$queryRaw<
      { value: string }[]
    >`SELECT DISTINCT "targetType" AS value FROM "audit_event" WHERE "targetType" IS NOT NULL ORDER BY 1`,
  ]);
  return { actions: actions.map((a) => a.value), targetTypes: targetTypes.map((t) => t.value) };
}
