// The Alerts page: the list, the navigation's count, and an SRE's acknowledge and resolve (both audited). An alert
// an SRE resolves while its condition still holds opens again at the next evaluation: resolve means "fixed".
import type { PrismaClient } from "@/generated/prisma/client";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { conflict, notFound } from "@/server/errors/domain-errors";
import { enqueueAlertDelivery } from "./alert-webhook-service";
import { alertAuditTarget } from "./alert-audit-target";
import type { ServiceCaller } from "./users-service";
import { alertDetailsColumn } from "@/contracts/alert-columns";

export type AlertFilter = "active" | "resolved" | "all";

/** Where the object an alert concerns is shown. */
function objectHref(type: string, id: string): string | null {
  if (type === "deployment") return `/deployments/${id}`;
  if (type === "agent") return "/agents";
  if (type === "proposal") return "/approvals";
  return null;
}

export async function listAlerts(input: { filter?: AlertFilter; limit?: number }, prisma: PrismaClient = db()) {
  const filter = input.filter ?? "active";
  const alerts = await prisma.alert.findMany({
    where:
      filter === "active"
        ? { state: { in: ["open", "acknowledged"] } }
        : filter === "resolved"
          ? { state: "resolved" }
          : {},
    orderBy: [{ firstSeenAt: "desc" }],
    take: Math.min(input.limit ?? 200, 500),
  });
  const userIds = [
    ...new Set(alerts.flatMap((a) => [a.acknowledgedById, a.resolvedById]).filter((x): x is string => !!x)),
  ];
  const users = await prisma.user.findMany({ where: { id: { in: userIds } }, select: { id: true, email: true } });
  const email = (id: string | null) => (id ? (users.find((u) => u.id === id)?.email ?? id) : null);
  // Active ones first by severity, then newest.
  const rank = (a: { state: string; severity: string }) =>
    (a.state === "resolved" ? 2 : 0) + (a.severity === "critical" ? 0 : 1);
  return alerts
    .sort((a, b) => rank(a) - rank(b) || b.firstSeenAt.getTime() - a.firstSeenAt.getTime())
    .map((a) => ({
      id: a.id,
      rule: a.rule,
      severity: a.severity as "critical" | "warning",
      state: a.state as "open" | "acknowledged" | "resolved",
      object: { type: a.objectType, id: a.objectId, label: a.objectLabel, href: objectHref(a.objectType, a.objectId) },
      message: a.message,
      details: alertDetailsColumn.read(a.details),
      firstSeenAt: a.firstSeenAt,
      lastSeenAt: a.lastSeenAt,
      acknowledgedAt: a.acknowledgedAt,
      acknowledgedBy: email(a.acknowledgedById),
      resolvedAt: a.resolvedAt,
      resolvedBy: a.resolvedAt ? (email(a.resolvedById) ?? "automatically (condition cleared)") : null,
      comment: a.comment,
    }));
}

/** For the navigation badge: unresolved alerts, and how many of them nobody acknowledged. */
export async function countAlerts(prisma: PrismaClient = db()) {
  const rows = await prisma.alert.groupBy({
    by: ["state", "severity"],
    where: { state: { in: ["open", "acknowledged"] } },
    _count: { _all: true },
  });
  const n = (f: (r: (typeof rows)[number]) => boolean) => rows.filter(f).reduce((s, r) => s + r._count._all, 0);
  return {
    unresolved: n(() => true),
    open: n((r) => r.state === "open"),
    openCritical: n((r) => r.state === "open" && r.severity === "critical"),
  };
}

export async function acknowledgeAlert(
  caller: ServiceCaller,
  input: { id: string; comment?: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const alert = await tx.alert.findUnique({ where: { id: input.id } });
    if (!alert) throw notFound("alert", input.id);
    if (alert.state !== "open") throw conflict(`the alert is ${alert.state}, not open`);
    const comment = input.comment?.trim() || null;
    await tx.alert.update({
      where: { id: alert.id },
      data: {
        state: "acknowledged",
        acknowledgedAt: new Date(),
        acknowledgedById: caller.user.id,
        ...(comment ? { comment } : {}),
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "alert.acknowledge",
      target: alertAuditTarget(alert),
      before: { state: alert.state },
      after: { state: "acknowledged", comment },
      requestId: caller.requestId,
    });
    return { state: "acknowledged" as const };
  });
}

export async function resolveAlert(
  caller: ServiceCaller,
  input: { id: string; comment?: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const alert = await tx.alert.findUnique({ where: { id: input.id } });
    if (!alert) throw notFound("alert", input.id);
    if (alert.state === "resolved") throw conflict("the alert is already resolved");
    const comment = input.comment?.trim() || null;
    const done = await tx.alert.update({
      where: { id: alert.id },
      data: {
        state: "resolved",
        resolvedAt: new Date(),
        resolvedById: caller.user.id,
        ...(comment ? { comment } : {}),
      },
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "alert.resolve",
      target: alertAuditTarget(alert),
      before: { state: alert.state },
      after: { state: "resolved", comment },
      requestId: caller.requestId,
    });
    await enqueueAlertDelivery(tx, done, "resolved");
    return { state: "resolved" as const };
  });
}
