// The append-only audit log. Call recordAudit with the transaction that makes the change it describes, so
// the change and its event commit together or not at all. The table cannot be updated or deleted from (a
// trigger raises); see the migration 20261129180000_auth_audit_agent_tokens.
import type { Prisma } from "@/generated/prisma/client";
import { writeOptionalJsonColumn, type JsonColumnInput } from "@/server/db/json-column";
import { auditAfterColumn, auditBeforeColumn } from "@/contracts/audit-columns";

export type AuditActor =
  | { type: "user"; id: string; label: string }
  | { type: "agent"; id: string; label: string }
  | { type: "system"; label: string }
  | { type: "anonymous"; label?: string };

export interface AuditEventInput {
  actor: AuditActor;
  /** `<thing>.<verb>`, e.g. user.create, agent_token.revoke, auth.sign_in. */
  action: string;
  /** label: the target's email or name at the time, shown and searched in the Audit page. */
  target?: { type: string; id: string; label?: string };
  /** What the target was and became, as JSON (src/contracts/audit-columns.ts). */
  before?: JsonColumnInput<typeof auditBeforeColumn>;
  after?: JsonColumnInput<typeof auditAfterColumn>;
  requestId?: string;
}

/** Anything with the audit table: the client itself, or (preferably) an interactive transaction. */
export type AuditWriter = Pick<Prisma.TransactionClient, "auditEvent">;

/** A user as an actor; an action taken with a personal API token says which, after the email. */
export const userActor = (user: { id: string; email: string; apiToken?: { name: string } }): AuditActor => ({
  type: "user",
  id: user.id,
  label: user.apiToken ? `${user.email} (API token ${user.apiToken.name})` : user.email,
});

function auditRow(event: AuditEventInput) {
  const { actor } = event;
  if (!/^[a-z][a-z_]*\.[a-z][a-z_]*$/.test(event.action))
    throw new Error(`audit action "${event.action}" is not <thing>.<verb>`);
  return {
    actorType: actor.type,
    actorId: "id" in actor ? actor.id : null,
    actorLabel: actor.label ?? null,
    action: event.action,
    targetType: event.target?.type ?? null,
    targetId: event.target?.id ?? null,
    targetLabel: event.target?.label ?? null,
    before: writeOptionalJsonColumn(auditBeforeColumn, event.before),
    after: writeOptionalJsonColumn(auditAfterColumn, event.after),
    requestId: event.requestId ?? null,
  };
}

export async function recordAudit(tx: AuditWriter, event: AuditEventInput): Promise<void> {
  await tx.auditEvent.create({ data: auditRow(event) });
}

/** Many events in one statement (a change to many rows at once, e.g. a fleet's alerts opening together). */
export async function recordAudits(tx: AuditWriter, events: readonly AuditEventInput[]): Promise<void> {
  if (events.length === 0) return;
  await tx.auditEvent.createMany({ data: events.map(auditRow) });
}
