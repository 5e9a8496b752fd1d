// The audit log is append-only in the database itself: the trigger from the migration refuses UPDATE,
// DELETE and TRUNCATE, whoever asks. And an event recorded inside a transaction that rolls back is gone
// with the change it described.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { db } from "@/server/db/client";
import { recordAudit } from "./record-audit";

describe("audit log", () => {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  let id = "";
  beforeAll(async () => {
    await client.connect();
    await recordAudit(db(), {
      actor: { type: "system", label: "test" },
      action: "test.append_only",
      target: { type: "test", id: "t1", label: "row one" },
      after: { n: 1 },
    });
    id = (await db().auditEvent.findFirstOrThrow({ where: { action: "test.append_only" } })).id.toString();
  });
  afterAll(async () => {
    await client.end();
  });

  it("records actor, action, target, before/after and request id", async () => {
    await recordAudit(db(), {
      actor: { type: "agent", id: "tok-1", label: "agent-a" },
      action: "test.recorded",
      target: { type: "deployment", id: "d1", label: "resnet" },
      before: { generation: 1, at: new Date("2026-11-29T10:00:00Z") },
      after: { generation: 2 },
      requestId: "req-1",
    });
    const row = await db().auditEvent.findFirstOrThrow({ where: { action: "test.recorded" } });
    expect(row).toMatchObject({
      actorType: "agent",
      actorId: "tok-1",
      actorLabel: "agent-a",
      targetType: "deployment",
      targetId: "d1",
      targetLabel: "resnet",
      before: { generation: 1, at: "2026-11-29T10:00:00.000Z" },
      after: { generation: 2 },
      requestId: "req-1",
    });
    expect(row.at).toBeInstanceOf(Date);
  });

  it("UPDATE of an audit row raises", async () => {
    await expect(client.query(`UPDATE "audit_event" SET "action" = 'tampered' WHERE id = $1`, [id])).rejects.toThrow(
      /append-only: UPDATE is not allowed/,
    );
    await expect(db().auditEvent.update({ where: { id: BigInt(id) }, data: { action: "tampered" } })).rejects.toThrow(
      /append-only/,
    );
  });

  it("DELETE of an audit row raises", async () => {
    await expect(client.query(`DELETE FROM "audit_event" WHERE id = $1`, [id])).rejects.toThrow(
      /append-only: DELETE is not allowed/,
    );
    await expect(db().auditEvent.deleteMany({})).rejects.toThrow(/append-only/);
  });

  it("TRUNCATE raises too", async () => {
    await expect(client.query(`TRUNCATE "audit_event"`)).rejects.toThrow(/append-only: TRUNCATE is not allowed/);
  });

  it("the row is untouched after all that", async () => {
    const row = await client.query(`SELECT "action" FROM "audit_event" WHERE id = $1`, [id]);
    expect(row.rows).toEqual([{ action: "test.append_only" }]);
  });

  it("an event recorded in a transaction that rolls back disappears with the change", async () => {
    await expect(
      db().$transaction(async (tx) => {
        await recordAudit(tx, { actor: { type: "system", label: "test" }, action: "test.rolled_back" });
        throw new Error("the change failed");
      }),
    ).rejects.toThrow("the change failed");
    expect(await db().auditEvent.count({ where: { action: "test.rolled_back" } })).toBe(0);
  });

  it("refuses an action that is not <thing>.<verb>", async () => {
    await expect(recordAudit(db(), { actor: { type: "system", label: "test" }, action: "Bad Action" })).rejects.toThrow(
      /<thing>.<verb>/,
    );
  });
});
