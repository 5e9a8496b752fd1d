// Price history against real PostgreSQL: the cost report prices each minute of past usage at the price in effect
// then (trend buckets and the period's cost), and every price change is written with its history row in one
// transaction (neither on a failure); the migration backfills one row per existing price.
import { randomUUID } from "node:crypto";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { insertTestUser } from "@/server/auth/test-support";
import { db } from "@/server/db/client";
import { migrate, readLocalMigrations } from "@/server/db/migrator";
import { createDatabase } from "../../../test/find-postgres";
import { ensureDemoPrice, getCostReport, listPriceHistory, removePrice, setPrice } from "./cost-service";
import { hardwareClassOf } from "./profiling-service";
import type { ServiceCaller } from "./users-service";

const tag = Math.random().toString(36).slice(2, 8);
const topology = { sockets: [{ id: 0, nodes: [{ id: 0, cores: [{ socket: 0, node: 0, coreId: 0, cpus: [0] }] }] }] };
const HOUR = 3_600_000;
const now = new Date();
// Day 0 of the scenario: UTC midnight three days ago (inside the 7-day period, every minute of it in the past).
const day0 = Math.floor(now.getTime() / 86_400_000) * 86_400_000 - 3 * 86_400_000;
const t = (days: number, hours: number, minutes = 0, seconds = 0) =>
  new Date(day0 + days * 86_400_000 + hours * HOUR + minutes * 60_000 + seconds * 1000);
let admin: ServiceCaller;
let agentId = "";
let hardwareClass = "";
let deploymentId = "";

beforeAll(async () => {
  const prisma = db();
  admin = { user: await insertTestUser(prisma, "admin"), requestId: `price-history-${tag}` };
  const agent = await prisma.agent.create({
    data: {
      hostName: `ph-${tag}`,
      agentVersion: "test",
      protocolVersion: 1,
      bootId: randomUUID(),
      topology,
      allowedCpus: [0],
      cpuModel: `price history cpu ${tag}`,
      memoryBytes: BigInt(1e9),
      ortVersion: "1.30.0",
    },
  });
  agentId = agent.id;
  hardwareClass = hardwareClassOf(agent);
  const sha = randomUUID().replace(/-/g, "").padEnd(64, "0");
  await prisma.artifact.create({ data: { sha256: sha, bytes: 1n } });
  const model = await prisma.model.create({ data: { name: `ph-${tag}`, sloDeadlineMs: 50, sloQuantile: 0.99 } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: sha, source: "upload", analysis: {} },
  });
  deploymentId = (
    await prisma.deployment.create({
      data: { agentId, modelVersionId: version.id, cpus: [0], generation: 1, observedGeneration: 1, state: "serving" },
    })
  ).id;

  // The class's history: $1/h from day 0 06:00, $3/h from day 1 12:00:30 (the minute 12:00 takes it: rollups are per
  // minute), removed at day 2 06:00.
  await prisma.hardwarePriceChange.createMany({
    data: [
      { hardwareClass, hourlyUsd: 1, effectiveFrom: t(0, 6), changedById: admin.user.id },
      { hardwareClass, hourlyUsd: 3, effectiveFrom: t(1, 12, 0, 30), changedById: admin.user.id },
      { hardwareClass, hourlyUsd: null, effectiveFrom: t(2, 6), changedById: admin.user.id },
    ],
  });
  const rollup = (minute: Date, withinSlo: number) => ({
    deploymentId,
    minute,
    intervalMs: 60_000,
    requestsCompleted: withinSlo,
    requestsRejected: 0,
    requestsWithinSlo: withinSlo,
  });
  await prisma.metricsRollup.createMany({
    data: [
      rollup(t(0, 5, 0), 100),
      rollup(t(0, 5, 1), 100), // before the first price: unpriced
      rollup(t(0, 7), 600), // $1/h
      rollup(t(1, 11, 59), 300), // $1/h
      rollup(t(1, 12, 0), 300), // $3/h (changed during this minute)
      rollup(t(2, 1), 600), // $3/h
      rollup(t(2, 7), 600), // after the removal: unpriced
    ],
  });
  // Today's price, set now (after every minute above): the forward-looking figures use it, the past does not.
  await setPrice(admin, { hardwareClass, hourlyUsd: 5 });
});

describe("the cost report across price changes", () => {
  it("prices each trend bucket and the period's cost at the prices in effect then", async () => {
    const r = await getCostReport({ period: "7d", hardwareClass, headroomMultiplier: 1.3, redundancyK: 1, now });
    // Day 0: 60 s × $1/h = $1/60 for 600 within the SLO → $27.78 per 1M (the two earlier minutes have no price).
    // Day 1: 60 s × $1/h + 60 s × $3/h = $4/60 for 600 → $111.11 per 1M.
    // Day 2: 60 s × $3/h = $3/60 for 600 → $83.33 per 1M (the minute after the removal has no price).
    // At today's $5/h every day would be $5/60 per 60 s: the old trend's answer.
    expect(r.trend.map((p) => p.t)).toEqual([t(0, 0), t(1, 0), t(2, 0)].map((d) => d.getTime()));
    expect(r.trend.map((p) => p.goodput)).toEqual([600, 600, 600]);
    const expected = [1 / 60 / 600, 4 / 60 / 600, 3 / 60 / 600].map((x) => x * 1e6);
    r.trend.forEach((p, i) => expect(p.costPerMillionUsd).toBeCloseTo(expected[i]!, 9));

    const row = r.rows.find((x) => x.deploymentId === deploymentId)!;
    // The period: $1/60 + $1/60 + $3/60 + $3/60 = $8/60 for 1,800 priced SLO-meeting inferences.
    expect(row.actual?.windowCostUsd).toBeCloseTo(8 / 60, 12);
    expect(row.actual?.goodput).toBe(1800);
    expect(row.actual?.costPerMillionUsd).toBeCloseTo((8 / 60 / 1800) * 1e6, 9);
    // Unpriced: the two minutes before the first price and the one after the removal, counted, not priced.
    expect(row.priced).toMatchObject({ windowS: 240, unpricedMinutes: 3, unpricedS: 180 });
    // Measured goodput still covers every reported minute: 100 + 100 + 600 + 300 + 300 + 600 + 600 = 2,600 in 420 s.
    expect(row.usage).toMatchObject({ windowS: 420, withinSlo: 2600 });
    expect(r.totals.all).toMatchObject({ unpricedMinutes: 3, unpricedS: 180 });
    expect(r.totals.all.costUsd).toBeCloseTo(8 / 60, 12);
    // Forward-looking: today's price.
    expect(row.price?.hourlyUsd).toBe(5);
  });
});

describe("a price change and its history row are written together", () => {
  it("set, remove and the demo price each append one row, effective now, by whom", async () => {
    const cls = `written ${tag}`;
    const before = new Date();
    await setPrice(admin, { hardwareClass: cls, hourlyUsd: 0.25, note: "list" });
    await removePrice(admin, { hardwareClass: cls });
    const history = await listPriceHistory(cls);
    // Newest first: the removal (no price from then on), then the set.
    expect(history.map((h) => h.hourlyUsd)).toEqual([null, 0.25]);
    expect(history[1]).toMatchObject({ note: "list", demo: false, changedBy: { email: admin.user.email } });
    expect(history[1]!.effectiveFrom.getTime()).toBeGreaterThanOrEqual(before.getTime());
    expect(Object.keys(history[1]!.changedBy!).sort()).toEqual(["email", "name"]);

    const agent = await db().agent.create({
      data: {
        hostName: `ph-demo-${tag}`,
        agentVersion: "test",
        protocolVersion: 1,
        bootId: randomUUID(),
        topology,
        allowedCpus: [0],
        cpuModel: `demo cpu ${tag}`,
        memoryBytes: BigInt(1e9),
        ortVersion: "1.30.0",
      },
    });
    const demoClass = (await ensureDemoPrice(agent.id, { type: "system", label: "npm start" }))!;
    expect(await listPriceHistory(demoClass)).toMatchObject([{ hourlyUsd: 0.17, demo: true, changedBy: null }]);
  });

  it("a refused price writes neither the price nor a history row", async () => {
    const cls = `refused ${tag}`;
    await expect(setPrice(admin, { hardwareClass: cls, hourlyUsd: -1 })).rejects.toThrow(
      /hourlyUsd must be a positive number/,
    );
    await expect(removePrice(admin, { hardwareClass: cls })).rejects.toThrow(/not found/);
    expect(await db().hardwarePrice.count({ where: { hardwareClass: cls } })).toBe(0);
    expect(await db().hardwarePriceChange.count({ where: { hardwareClass: cls } })).toBe(0);
  });

  it("when the history row fails, the price is rolled back with it (one transaction)", async () => {
    const cls = `rollback ${tag}`;
    // A real failure inside the transaction, after the price row is written: a trigger refusing this class's history.
    const fn = `refuse_history_${tag}`;
    await db().$executeRawUnsafe(
      `CREATE FUNCTION ${fn}() RETURNS trigger AS $$ BEGIN IF NEW."hardwareClass" = '${cls}' THEN RAISE EXCEPTION 'history refused'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await db().$executeRawUnsafe(
      `CREATE TRIGGER ${fn} BEFORE INSERT ON hardware_price_change FOR EACH ROW EXECUTE FUNCTION ${fn}()`,
    );
    try {
      await expect(setPrice(admin, { hardwareClass: cls, hourlyUsd: 1 })).rejects.toThrow(/history refused/);
    } finally {
      await db().$executeRawUnsafe(`DROP TRIGGER ${fn} ON hardware_price_change`);
      await db().$executeRawUnsafe(`DROP FUNCTION ${fn}()`);
    }
    expect(await db().hardwarePrice.count({ where: { hardwareClass: cls } })).toBe(0);
    expect(await db().auditEvent.count({ where: { action: "hardware_price.set", targetId: cls } })).toBe(0);
  });
});

describe("the migration", () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const f of cleanup.reverse()) await f();
  });

  it("backfills one history row per existing price, effective from its updatedAt", async () => {
    const database = await createDatabase(inject("adminDatabaseUrl"), "packrat_ph");
    cleanup.push(database.drop);
    const all = resolve("prisma/migrations");
    const names = readLocalMigrations(all).map((m) => m.name);
    const mine = names.indexOf("20261201130517_hardware_price_history");
    expect(mine).toBeGreaterThan(0);
    // The migrations before this one, then a price, then the rest.
    const before = mkdtempSync(join(tmpdir(), "packrat-ph-"));
    cleanup.push(() => rmSync(before, { recursive: true, force: true }));
    cpSync(join(all, "migration_lock.toml"), join(before, "migration_lock.toml"));
    for (const name of names.slice(0, mine)) cpSync(join(all, name), join(before, name), { recursive: true });
    await migrate(database.url, before);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    cleanup.push(() => client.end());
    await client.query(
      `INSERT INTO hardware_price ("hardwareClass", "hourlyUsd", demo, note, "updatedById", "updatedAt") VALUES ('old class', 0.9, false, 'kept', 'u1', '2026-01-02T03:04:05Z')`,
    );
    await migrate(database.url, all);
    const rows = (
      await client.query(
        `SELECT "hardwareClass", "hourlyUsd", demo, note, "changedById", "effectiveFrom" FROM hardware_price_change`,
      )
    ).rows;
    expect(rows).toEqual([
      {
        hardwareClass: "old class",
        hourlyUsd: 0.9,
        demo: false,
        note: "kept",
        changedById: "u1",
        effectiveFrom: expect.any(Date),
      },
    ]);
    const effective = (
      await client.query(`SELECT to_char("effectiveFrom", 'YYYY-MM-DD HH24:MI:SS') AS at FROM hardware_price_change`)
    ).rows[0].at;
    expect(effective).toBe("2026-01-02 03:04:05");
  });
});
