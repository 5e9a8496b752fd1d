// Reading the audit log: filters and keyset pages. Events go into a fresh database so counts are exact.
import { resolve } from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { PrismaClient } from "@/generated/prisma/client";
import { recordAudit } from "@/server/audit/record-audit";
import { migrate } from "@/server/db/migrator";
import { createDatabase } from "../../../test/find-postgres";
import { auditFilterOptions, listAuditEvents } from "./audit-service";

describe("audit service", () => {
  let prisma: PrismaClient;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const database = await createDatabase(inject("adminDatabaseUrl"), "packrat_audit");
    drop = database.drop;
    await migrate(database.url, resolve("prisma/migrations"));
    prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 2 }) });
    // 30 events, i = 0..29: even i by ada (user.create of u<i>), odd i by an agent (deployment.apply of d<i>).
    for (let i = 0; i < 30; i++) {
      await recordAudit(
        prisma,
        i % 2 === 0
          ? {
              actor: { type: "user", id: "ada-id", label: "ada@example.com" },
              action: "user.create",
              target: { type: "user", id: `u${i}`, label: `person${i}@example.com` },
            }
          : {
              actor: { type: "agent", id: "tok-1", label: "host-a" },
              action: "deployment.apply",
              target: { type: "deployment", id: `d${i}`, label: `model-${i}` },
            },
      );
    }
    // Then ten ticks at 10:00 + i minutes, with times of their own (recordAudit stamps now()); inserting is allowed.
    await prisma.$executeRaw`INSERT INTO "audit_event" ("at", "actorType", "action", "targetType", "targetId")
      SELECT TIMESTAMP '2026-11-01 10:00:00' + make_interval(mins => i), 'system', 'clock.tick', 'tick', 't' || i FROM generate_series(0, 9) AS i`;
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await drop();
  });

  it("pages newest first by id: 25, then the remaining 15; blank filters are no filters", async () => {
    // 40 events: ids 1..30 are i = 0..29, ids 31..40 the clock ticks t0..t9.
    const first = await listAuditEvents({ actor: "  ", target: "" }, prisma);
    expect(first.events).toHaveLength(25);
    expect(first.events.slice(0, 11).map((e) => e.targetId)).toEqual([
      "t9",
      "t8",
      "t7",
      "t6",
      "t5",
      "t4",
      "t3",
      "t2",
      "t1",
      "t0",
      "d29",
    ]);
    expect(first.nextBefore).toBe(first.events[24]!.id);
    const second = await listAuditEvents({ before: first.nextBefore! }, prisma);
    expect(second.events).toHaveLength(15);
    expect(second.events.at(-1)!.targetId).toBe("u0");
    expect(second.nextBefore).toBeNull();
  });

  it("filters by actor (label substring, any case, or exact id), action, target type and target", async () => {
    expect((await listAuditEvents({ actor: "ADA@", limit: 100 }, prisma)).events).toHaveLength(15);
    expect((await listAuditEvents({ actor: "tok-1", limit: 100 }, prisma)).events).toHaveLength(15);
    expect(
      (await listAuditEvents({ action: "deployment.apply", limit: 100 }, prisma)).events.every(
        (e) => e.actorType === "agent",
      ),
    ).toBe(true);
    expect((await listAuditEvents({ targetType: "user", limit: 100 }, prisma)).events).toHaveLength(15);
    expect((await listAuditEvents({ target: "person1", limit: 100 }, prisma)).events.map((e) => e.targetId)).toEqual([
      "u18",
      "u16",
      "u14",
      "u12",
      "u10",
    ]);
    expect((await listAuditEvents({ target: "d7" }, prisma)).events.map((e) => e.targetLabel)).toEqual(["model-7"]);
    expect((await listAuditEvents({ actor: "ada", action: "deployment.apply" }, prisma)).events).toEqual([]);
  });

  it("filters by time range, both ends inclusive", async () => {
    const ticks = await listAuditEvents(
      { action: "clock.tick", from: new Date("2026-11-01T10:03:00Z"), to: new Date("2026-11-01T10:05:00Z") },
      prisma,
    );
    expect(ticks.events.map((e) => e.targetId)).toEqual(["t5", "t4", "t3"]);
    expect(ticks.events[0]!.at.toISOString()).toBe("2026-11-01T10:05:00.000Z");
    expect((await listAuditEvents({ to: new Date("2026-11-01T09:59:59Z") }, prisma)).events).toEqual([]);
  });

  it("offers the recorded actions and target types for the filter menus", async () => {
    expect(await auditFilterOptions(prisma)).toEqual({
      actions: ["clock.tick", "deployment.apply", "user.create"],
      targetTypes: ["deployment", "tick", "user"],
    });
  });
});
