// Alert delivery to a webhook (issue #17): each alert event (fired, resolved) becomes a delivery row, POSTed as JSON
// and retried with doubling backoff until it is accepted (2xx) or runs out of tries. The rows are the delivery log.
// Deliveries are claimed row by row (an optimistic update), so two replicas never send the same one at once.
import type { Prisma, PrismaClient } from "@/generated/prisma/client";
import { writeJsonColumn } from "@/server/db/json-column";
import type { StoredJsonValue } from "@/contracts/json-column";
import { deliveryRetryDelayMs } from "@/core/alerts/delivery-backoff";
import { recordAudit, userActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { invalidInput } from "@/server/errors/domain-errors";
import { OutboundRefusedError, OutboundRequestError } from "@/server/net/outbound-guard";
import { outboundGuard } from "@/server/net/outbound";
import type { ServiceCaller } from "./users-service";
import { alertDetailsColumn, deliveryLogColumn, deliveryPayloadColumn } from "@/contracts/alert-columns";

type Tx = Prisma.TransactionClient;
const WEBHOOK_ID = "default";
const severityRank: Record<string, number> = { warning: 1, critical: 2 };

export interface AlertRow {
  id: string;
  rule: string;
  severity: string;
  state: string;
  objectType: string;
  objectId: string;
  objectLabel: string;
  message: string;
  details: StoredJsonValue;
  firstSeenAt: Date;
  lastSeenAt: Date;
  resolvedAt: Date | null;
}

/** The JSON body a receiver gets. */
export function alertPayload(alert: AlertRow, event: "fired" | "resolved", publicUrl: string) {
  return {
    source: "packrat",
    event,
    alert: {
      id: alert.id,
      rule: alert.rule,
      severity: alert.severity,
      state: alert.state,
      object: { type: alert.objectType, id: alert.objectId, label: alert.objectLabel },
      message: alert.message,
      details: alertDetailsColumn.read(alert.details),
      firstSeenAt: alert.firstSeenAt.toISOString(),
      lastSeenAt: alert.lastSeenAt.toISOString(),
      resolvedAt: alert.resolvedAt?.toISOString() ?? null,
    },
    url: `${publicUrl.replace(/\/$/, "")}/alerts?alert=${encodeURIComponent(alert.id)}`,
  };
}

/** Queues an event for the webhook, when one is set, enabled, and the alert is severe enough. */
export async function enqueueAlertDelivery(tx: Tx, alert: AlertRow, event: "fired" | "resolved"): Promise<void> {
  await enqueueAlertDeliveries(tx, [alert], event);
}

/** The deliveries of many alerts' same event: one webhook lookup and one insert, whatever their number. */
export async function enqueueAlertDeliveries(
  tx: Tx,
  alerts: readonly AlertRow[],
  event: "fired" | "resolved",
): Promise<void> {
  if (alerts.length === 0) return;
  const hook = await tx.alertWebhook.findUnique({ where: { id: WEBHOOK_ID } });
  if (!hook || !hook.enabled) return;
  const due = alerts.filter((a) => (severityRank[a.severity] ?? 0) >= (severityRank[hook.minSeverity] ?? 0));
  if (due.length === 0) return;
  const publicUrl = env().PACKRAT_PUBLIC_URL;
  await tx.alertDelivery.createMany({
    data: due.map((alert) => ({
      alertId: alert.id,
      event,
      url: hook.url,
      payload: writeJsonColumn(deliveryPayloadColumn, alertPayload(alert, event, publicUrl)),
    })),
  });
}

export async function getAlertWebhook(prisma: PrismaClient = db()) {
  const hook = await prisma.alertWebhook.findUnique({ where: { id: WEBHOOK_ID } });
  return hook
    ? { url: hook.url, enabled: hook.enabled, minSeverity: hook.minSeverity, updatedAt: hook.updatedAt }
    : null;
}

async function checkUrl(raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidInput("not a URL", { field: "url" });
  }
  if (url.protocol !== "https:" && url.protocol !== "http:")
    throw invalidInput("the webhook must be an http:// or https:// URL", { field: "url" });
  // Early word for the SRE; each delivery is checked again where it connects (the name may change its answer).
  // A name that does not resolve from here yet is accepted: its deliveries fail and say so.
  try {
    await outboundGuard().check(url);
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw invalidInput(error.message, { field: "url" });
  }
  return url.toString();
}

/** Sets (or, with url null, removes) the webhook. Audited; the URL may carry a secret, so the audit keeps its origin only. */
export async function setAlertWebhook(
  caller: ServiceCaller,
  input: { url: string | null; enabled: boolean; minSeverity: "warning" | "critical" },
  prisma: PrismaClient = db(),
) {
  const url = input.url === null || input.url.trim() === "" ? null : await checkUrl(input.url.trim());
  return prisma.$transaction(async (tx) => {
    const before = await tx.alertWebhook.findUnique({ where: { id: WEBHOOK_ID } });
    if (url === null) {
      if (before) await tx.alertWebhook.delete({ where: { id: WEBHOOK_ID } });
    } else {
      await tx.alertWebhook.upsert({
        where: { id: WEBHOOK_ID },
        create: {
          id: WEBHOOK_ID,
          url,
          enabled: input.enabled,
          minSeverity: input.minSeverity,
          updatedById: caller.user.id,
        },
        update: { url, enabled: input.enabled, minSeverity: input.minSeverity, updatedById: caller.user.id },
      });
    }
    const shown = (u: string | null | undefined) => (u ? new URL(u).origin : null);
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "alert_webhook.update",
      target: { type: "alert_webhook", id: WEBHOOK_ID },
      before: before ? { origin: shown(before.url), enabled: before.enabled, minSeverity: before.minSeverity } : null,
      after: url ? { origin: shown(url), enabled: input.enabled, minSeverity: input.minSeverity } : null,
      requestId: caller.requestId,
    });
    return { url, enabled: input.enabled, minSeverity: input.minSeverity };
  });
}

export async function listAlertDeliveries(input: { limit?: number }, prisma: PrismaClient = db()) {
  const rows = await prisma.alertDelivery.findMany({
    orderBy: { createdAt: "desc" },
    take: Math.min(input.limit ?? 50, 200),
  });
  const alerts = await prisma.alert.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.alertId))] } },
    select: { id: true, rule: true, objectLabel: true, severity: true },
  });
  return rows.map((r) => ({
    id: r.id,
    alertId: r.alertId,
    alert: alerts.find((a) => a.id === r.alertId) ?? null,
    event: r.event,
    origin: new URL(r.url).origin,
    status: r.status,
    attempts: r.attempts,
    log: deliveryLogColumn.read(r.log),
    nextAttemptAt: r.status === "pending" ? r.nextAttemptAt : null,
    createdAt: r.createdAt,
    deliveredAt: r.deliveredAt,
  }));
}

export interface DeliveryOptions {
  timeoutMs: number;
  maxAttempts: number;
  backoffMs: number;
  backoffMaxMs: number;
  now?: () => Date;
}

function deliveryOptions(): DeliveryOptions {
  const e = env();
  return {
    timeoutMs: e.ALERT_WEBHOOK_TIMEOUT_MS,
    maxAttempts: e.ALERT_WEBHOOK_MAX_ATTEMPTS,
    backoffMs: e.ALERT_WEBHOOK_BACKOFF_MS,
    backoffMaxMs: e.ALERT_WEBHOOK_BACKOFF_MAX_MS,
  };
}

/** One try. `refused`: the guard would not connect (nothing was sent; nothing about the target is recorded). */
async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<{ httpStatus?: number; error?: string; refused?: true }> {
  try {
    // Through the outbound guard: no loopback, private or metadata address unless allowed, no redirects followed.
    const text = JSON.stringify(body);
    const response = await outboundGuard().fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(text)),
        "user-agent": "packrat-alerts",
        ...headers,
      },
      body: text,
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel().catch(() => {});
    return response.ok
      ? { httpStatus: response.status }
      : { httpStatus: response.status, error: `HTTP ${response.status}` };
  } catch (error) {
    if (error instanceof OutboundRefusedError)
      return { error: `refused: ${error.reason} address (see PACKRAT_OUTBOUND_ALLOW)`, refused: true };
    if ((error as Error).name === "TimeoutError" || (error as Error).name === "AbortError")
      return { error: `timed out after ${timeoutMs} ms` };
    return { error: error instanceof OutboundRequestError ? error.code : (error as Error).message };
  }
}

/** Sends the deliveries that are due (first tries and retries whose backoff passed). Returns how many were tried. */
export async function deliverDueAlerts(
  prisma: PrismaClient = db(),
  options: DeliveryOptions = deliveryOptions(),
): Promise<number> {
  const now = options.now ?? (() => new Date());
  const due = await prisma.alertDelivery.findMany({
    where: { status: "pending", nextAttemptAt: { lte: now() } },
    orderBy: { createdAt: "asc" },
    take: 20,
  });
  let tried = 0;
  for (const d of due) {
    // Claim: push its next attempt past this try's time limit; a replica that read the same row loses the race.
    const lease = new Date(now().getTime() + options.timeoutMs * 2 + 1000);
    const claimed = await prisma.alertDelivery.updateMany({
      where: { id: d.id, status: "pending", nextAttemptAt: d.nextAttemptAt },
      data: { nextAttemptAt: lease },
    });
    if (claimed.count !== 1) continue;
    const attempt = d.attempts + 1;
    const started = performance.now();
    const { refused, ...result } = await post(
      d.url,
      d.payload,
      { "x-packrat-delivery": d.id, "x-packrat-attempt": String(attempt) },
      options.timeoutMs,
    );
    // A refused target is final (retrying cannot change the answer) and its log line carries no timing.
    const entry = refused
      ? { at: now().toISOString(), ms: 0, ...result }
      : { at: now().toISOString(), ms: Math.round(performance.now() - started), ...result };
    const log = [...deliveryLogColumn.read(d.log ?? []), entry];
    const ok = result.error === undefined;
    await prisma.alertDelivery.update({
      where: { id: d.id },
      data: ok
        ? { status: "delivered", attempts: attempt, log: writeJsonColumn(deliveryLogColumn, log), deliveredAt: now() }
        : attempt >= options.maxAttempts || refused
          ? { status: "failed", attempts: attempt, log: writeJsonColumn(deliveryLogColumn, log) }
          : {
              attempts: attempt,
              log: writeJsonColumn(deliveryLogColumn, log),
              nextAttemptAt: new Date(
                now().getTime() +
                  deliveryRetryDelayMs(attempt, options.backoffMs, Math.max(options.backoffMs, options.backoffMaxMs)),
              ),
            },
    });
    tried++;
  }
  return tried;
}
