// metrics_rollup's day partitions on real PostgreSQL, in a database of this file's own (days are dropped here that
// other files' rows live in): days created ahead with the rows DEFAULT held for them moved in, a repeat doing
// nothing, expired days dropped whole, concurrent passes serialised; rows still written and merged by the metrics
// path (ON CONFLICT on the primary key across partitions) and still removed with their deployment.
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { rollupPartColumn } from "@/contracts/deployment-columns";
import { DAY_MS, dayPartitionName } from "@/core/retention/partition-plan";
import { LatencyHistogram } from "@/core/stats/histogram";
import { PrismaClient } from "@/generated/prisma/client";
import { migrate } from "@/server/db/migrator";
import { createDatabase } from "../../../test/find-postgres";
import { pruneAgentMetrics, recordAgentMetrics } from "./agent-heartbeat-service";
import { maintainMetricsPartitions } from "./metrics-partitions-service";

let prisma: PrismaClient;
/** The metrics message's own statement runs on plain pg: a pool on this file's database. */
let pool: pg.Pool;
let drop: () => Promise<void>;
let agentId = "";
let deploymentId = "";

const T = "metrics_rollup";
const at = (iso: string) => new Date(iso);
// A clock years from the real one, so the days it creates and drops never meet the metrics path's (real) minutes.
const now0 = at("2031-03-10T12:00:00Z");
const D = Date.parse("2031-03-10T00:00:00Z");
const dayName = (offsetDays: number) => dayPartitionName(T, D + offsetDays * DAY_MS);
/** The histogram parts' table, partitioned by the same days. */
const P = "metrics_rollup_part";
const partDayName = (offsetDays: number) => dayPartitionName(P, D + offsetDays * DAY_MS);

async function rowsByPartition(id = deploymentId): Promise<Array<{ part: string; minute: Date; completed: number }>> {
  return prisma.$queryRaw`SELECT tableoid::regclass::text AS part, minute, "requestsCompleted" AS completed
    FROM metrics_rollup WHERE "deploymentId" = ${id} ORDER BY minute`;
}

async function partsByPartition(id = deploymentId): Promise<Array<{ part: string; minute: Date }>> {
  return prisma.$queryRaw`SELECT tableoid::regclass::text AS part, minute
    FROM metrics_rollup_part WHERE "deploymentId" = ${id} ORDER BY minute`;
}

async function partitions(client = prisma, table = T): Promise<string[]> {
  const rows = await client.$queryRaw<Array<{ name: string }>>`SELECT c.relname AS name FROM pg_inherits i
    JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = ${table}::regclass ORDER BY 1`;
  return rows.map((r) => r.name);
}

beforeAll(async () => {
  const database = await createDatabase(inject("adminDatabaseUrl"), "packrat_parts");
  drop = database.drop;
  await migrate(database.url, resolve("prisma/migrations"));
  prisma = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 4 }) });
  pool = new pg.Pool({ connectionString: database.url, max: 2 });
  ({ agentId, deploymentId } = await insertDeployment(prisma));
});

async function insertDeployment(prisma: PrismaClient): Promise<{ agentId: string; deploymentId: string }> {
  const agent = await prisma.agent.create({
    data: {
      hostName: "parts-host",
      agentVersion: "0.1.0",
      protocolVersion: 1,
      bootId: "boot-1",
      topology: {},
      allowedCpus: [0],
      cpuModel: "test",
      memoryBytes: 1e9,
      ortVersion: "1.30.0",
    },
  });
  await prisma.artifact.create({ data: { sha256: "a".repeat(64), bytes: 1n } });
  const model = await prisma.model.create({ data: { name: "parts-model", sloDeadlineMs: 50, sloQuantile: 0.99 } });
  const version = await prisma.modelVersion.create({
    data: { modelId: model.id, number: 1, artifactSha256: "a".repeat(64), source: "upload", analysis: {} },
  });
  const deployment = await prisma.deployment.create({
    data: { agentId: agent.id, modelVersionId: version.id, cpus: [0], state: "ready" },
  });
  return { agentId: agent.id, deploymentId: deployment.id };
}
afterAll(async () => {
  await prisma?.$disconnect();
  await pool?.end();
  await drop?.();
});

describe("maintainMetricsPartitions", () => {
  it("starts from the DEFAULT partition alone: an empty table had no days to copy", async () => {
    expect(await partitions()).toEqual(["metrics_rollup_default"]);
    expect(await partitions(prisma, P)).toEqual(["metrics_rollup_part_default"]);
  });

  it("creates today and two days ahead, moves DEFAULT's rows for them in, and expires DEFAULT's old rows", async () => {
    // Written before any maintenance: all four land in DEFAULT.
    for (const [offsetDays, completed] of [
      [-40, 1],
      [-3, 2],
      [0, 3],
      [1, 4],
    ] as const) {
      await prisma.metricsRollup.create({
        data: { deploymentId, minute: new Date(D + offsetDays * DAY_MS + 3_600_000), requestsCompleted: completed },
      });
      await prisma.metricsRollupPart.create({
        data: { deploymentId, minute: new Date(D + offsetDays * DAY_MS + 3_600_000), encoded: Buffer.of(1) },
      });
    }
    expect(new Set((await rowsByPartition()).map((r) => r.part))).toEqual(new Set(["metrics_rollup_default"]));
    expect(new Set((await partsByPartition()).map((r) => r.part))).toEqual(new Set(["metrics_rollup_part_default"]));

    const result = await maintainMetricsPartitions(30, now0, prisma);
    // The days it creates keep a part's histograms in the row (STORAGE MAIN), as the parent's partitions do.
    expect(
      await prisma.$queryRaw`SELECT DISTINCT a.attstorage::text AS storage FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname LIKE 'metrics_rollup_part%' AND a.attname IN ('encoded', 'deploymentId')`,
    ).toEqual([{ storage: "m" }]);
    // Both tables alike: the same days created, each table's rows moved and expired.
    expect(result).toEqual({
      created: [dayName(0), dayName(1), dayName(2), partDayName(0), partDayName(1), partDayName(2)],
      dropped: [],
      rowsMoved: 4,
      // cutoff = 03-10T12:00 − 30 d = 02-08T12:00; the oldest day kept starts 02-08T00:00. The rows of 01-29 go.
      defaultRowsExpired: 2,
    });
    expect(await rowsByPartition()).toEqual([
      { part: "metrics_rollup_default", minute: new Date(D - 3 * DAY_MS + 3_600_000), completed: 2 },
      { part: dayName(0), minute: new Date(D + 3_600_000), completed: 3 },
      { part: dayName(1), minute: new Date(D + DAY_MS + 3_600_000), completed: 4 },
    ]);
    expect(await partsByPartition()).toEqual([
      { part: "metrics_rollup_part_default", minute: new Date(D - 3 * DAY_MS + 3_600_000) },
      { part: partDayName(0), minute: new Date(D + 3_600_000) },
      { part: partDayName(1), minute: new Date(D + DAY_MS + 3_600_000) },
    ]);
  });

  it("gives an attached day the parent's primary key, index and foreign key", async () => {
    const indexes = await prisma.$queryRaw<Array<{ def: string }>>`
      SELECT indexdef AS def FROM pg_indexes WHERE tablename = ${dayName(0)} ORDER BY indexname`;
    expect(indexes.map((i) => i.def.replace(/ USING btree/, ""))).toEqual([
      `CREATE INDEX ${dayName(0)}_minute_idx ON public.${dayName(0)} (minute)`,
      `CREATE UNIQUE INDEX ${dayName(0)}_pkey ON public.${dayName(0)} ("deploymentId", minute)`,
    ]);
    const constraints = await prisma.$queryRaw<Array<{ def: string }>>`
      SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = ${dayName(0)}::regclass AND contype = 'f'`;
    expect(constraints.map((c) => c.def)).toEqual([
      `FOREIGN KEY ("deploymentId") REFERENCES deployment(id) ON UPDATE CASCADE ON DELETE CASCADE`,
    ]);
  });

  it("does nothing the second time", async () => {
    const before = await partitions();
    expect(await maintainMetricsPartitions(30, now0, prisma)).toEqual({
      created: [],
      dropped: [],
      rowsMoved: 0,
      defaultRowsExpired: 0,
    });
    expect(await partitions()).toEqual(before);
  });

  it("drops a day once all of it is past the retention period, and keeps the day straddling the cutoff", async () => {
    // 31 days on: cutoff = 04-10T12:00 − 30 d = 03-11T12:00. 03-10 ended 03-11T00:00 → dropped, its row with it;
    // 03-11 ends 03-12T00:00 → kept. The DEFAULT row of 03-07 is before 03-11T00:00 → expired.
    const later = new Date(now0.getTime() + 31 * DAY_MS);
    const result = await maintainMetricsPartitions(30, later, prisma);
    expect(result).toEqual({
      created: [dayName(31), dayName(32), dayName(33), partDayName(31), partDayName(32), partDayName(33)],
      dropped: [dayName(0), partDayName(0)],
      rowsMoved: 0,
      defaultRowsExpired: 2,
    });
    expect(await rowsByPartition()).toEqual([
      { part: dayName(1), minute: new Date(D + DAY_MS + 3_600_000), completed: 4 },
    ]);
    expect(await partsByPartition()).toEqual([{ part: partDayName(1), minute: new Date(D + DAY_MS + 3_600_000) }]);
    expect(await partitions()).not.toContain(dayName(0));
    expect(await partitions(prisma, P)).not.toContain(partDayName(0));
    expect(await prisma.$queryRaw`SELECT to_regclass(${dayName(0)})::text AS t`).toEqual([{ t: null }]);
  });

  it("serialises concurrent passes: one creates, the others find nothing left to do", async () => {
    const clock = at("2032-01-01T06:00:00Z");
    const results = await Promise.all([1, 2, 3].map(() => maintainMetricsPartitions(400, clock, prisma)));
    const created = results.flatMap((r) => r.created).sort();
    expect(created).toEqual([
      "metrics_rollup_p20320101",
      "metrics_rollup_p20320102",
      "metrics_rollup_p20320103",
      "metrics_rollup_part_p20320101",
      "metrics_rollup_part_p20320102",
      "metrics_rollup_part_p20320103",
    ]);
    expect(results.filter((r) => r.created.length > 0)).toHaveLength(1);
  });
});

describe("the metrics path on the partitioned table", () => {
  const identity = () => ({ tokenId: "t", name: "parts-host", createdAt: new Date(), agentId });
  const metrics = (completed: number) => ({
    bootId: "boot-1",
    host: { cpuBusyFraction: 0.25, memoryUsedBytes: 2e9 },
    servingProcessRestarts: 0,
    deployments: [
      {
        deploymentId,
        intervalMs: 15_000,
        requests: { completed, rejected: 0, withinSlo: completed },
        rows: { completed, rejected: 0 },
        histograms: {},
        busyMs: 1000,
        queueDepthRows: 0,
        instances: [{ id: 0, threads: 1, batch: 1, state: "ready" as const, cpus: [0], affinityOk: true }],
        affinityOk: true,
      },
    ],
  });

  it("writes this minute into today's partition and merges the next report into the same row", async () => {
    // Real time from here on: pruneAgentMetrics maintains the partitions for the real today.
    const pruned = await pruneAgentMetrics(30, prisma);
    expect(pruned.rollupPartitions.created).toContain(dayPartitionName(T, Math.floor(Date.now() / DAY_MS) * DAY_MS));
    // Two reports in the same minute (retried until they are: a minute boundary between them would split them).
    for (;;) {
      const minute = Math.floor(Date.now() / 60_000);
      await prisma.metricsRollup.deleteMany({
        where: { deploymentId, minute: { gte: new Date(minute * 60_000), lt: new Date((minute + 1) * 60_000) } },
      });
      await recordAgentMetrics(identity(), metrics(5), prisma, pool);
      await recordAgentMetrics(identity(), metrics(7), prisma, pool);
      if (Math.floor(Date.now() / 60_000) === minute) break;
    }
    const today = dayPartitionName(T, Math.floor(Date.now() / DAY_MS) * DAY_MS);
    const mine = (await rowsByPartition()).filter((r) => r.part === today);
    expect(mine).toHaveLength(1);
    expect(mine[0]!.completed).toBe(12);
    const [row] = await prisma.$queryRaw<Array<{ intervalMs: number; busyMs: number }>>`
      SELECT "intervalMs", "busyMs" FROM metrics_rollup WHERE "deploymentId" = ${deploymentId} AND minute = ${mine[0]!.minute}`;
    expect(row).toEqual({ intervalMs: 30_000, busyMs: 2000 });
  });

  it("still refuses a second row for the same deployment and minute", async () => {
    const minute = new Date(D + DAY_MS + 3_600_000); // the kept 03-11 row
    await expect(prisma.metricsRollup.create({ data: { deploymentId, minute } })).rejects.toThrow();
  });

  it("removes a deployment's rows from every partition, DEFAULT included, when the deployment goes", async () => {
    await prisma.metricsRollup.create({ data: { deploymentId, minute: at("2040-01-01T00:00:00Z") } }); // DEFAULT
    await prisma.metricsRollupPart.create({
      data: { deploymentId, minute: at("2040-01-01T00:00:00Z"), encoded: Buffer.of(1) },
    });
    expect(new Set((await partsByPartition()).map((r) => r.part))).toContain("metrics_rollup_part_default");
    const parts = new Set((await rowsByPartition()).map((r) => r.part));
    expect(parts.size).toBeGreaterThanOrEqual(3);
    expect(parts).toContain("metrics_rollup_default");
    await prisma.deployment.delete({ where: { id: deploymentId } });
    expect(await rowsByPartition()).toEqual([]);
    expect(await partsByPartition()).toEqual([]);
  });
});

describe("the migration to a partitioned table", () => {
  it("copies the rows an unpartitioned table had into a partition per UTC day they fall in", async () => {
    const database = await createDatabase(inject("adminDatabaseUrl"), "packrat_parts_m");
    const before = mkdtempSync(join(tmpdir(), "packrat-migrations-before-"));
    const client = new PrismaClient({ adapter: new PrismaPg({ connectionString: database.url, max: 2 }) });
    try {
      // Every migration up to the one that partitions metrics_rollup, then rows, then that migration.
      const all = resolve("prisma/migrations");
      for (const name of readdirSync(all)) {
        if (name < "20261204190000_partition_metrics_rollup")
          cpSync(join(all, name), join(before, name), { recursive: true });
      }
      await migrate(database.url, before);
      const { deploymentId: id } = await insertDeployment(client);
      const minutes = ["2026-11-01T00:00:00Z", "2026-11-01T23:59:59.999Z", "2026-11-02T00:00:00Z"];
      // The histograms as rows held them over time: one merged object, an empty one, an array of parts (base64 of
      // compressed HdrHistograms; a value that is not base64 never decoded and is left out).
      const encoded = (ms: number) => {
        const h = LatencyHistogram.create();
        h.recordMs(ms, 3);
        return h.encode();
      };
      const [h, a, b] = [encoded(1), encoded(2), encoded(3)];
      const histograms = [
        JSON.stringify({ compute: h, total: h }),
        "{}",
        JSON.stringify([{ compute: a, serialize: "not base64!" }, { compute: b }]),
      ];
      for (const [i, minute] of minutes.entries()) {
        await client.$executeRaw`INSERT INTO metrics_rollup ("deploymentId", minute, "requestsCompleted", "busyMs", histograms)
          VALUES (${id}, ${new Date(minute)}, ${i + 1}, ${10 * i}, ${histograms[i]}::jsonb)`;
      }
      // This migration and the ones after it (only the first three concern these rows).
      expect((await migrate(database.url, all)).slice(0, 3)).toEqual([
        "20261204190000_partition_metrics_rollup",
        "20261206220000_metrics_rollup_parts",
        "20261207150000_rollup_part_binary",
      ]);
      expect(await partitions(client)).toEqual([
        "metrics_rollup_default",
        "metrics_rollup_p20261101",
        "metrics_rollup_p20261102",
      ]);
      const rows = await client.$queryRaw<Array<{ part: string; minute: Date; completed: number; busy: number }>>`
        SELECT tableoid::regclass::text AS part, minute, "requestsCompleted" AS completed, "busyMs" AS busy
        FROM metrics_rollup ORDER BY minute`;
      expect(rows).toEqual([
        { part: "metrics_rollup_p20261101", minute: new Date(minutes[0]!), completed: 1, busy: 0 },
        { part: "metrics_rollup_p20261101", minute: new Date(minutes[1]!), completed: 2, busy: 10 },
        { part: "metrics_rollup_p20261102", minute: new Date(minutes[2]!), completed: 3, busy: 20 },
      ]);
      // The parts moved into metrics_rollup_part, in order, into the same days, their histograms then as bytes (the
      // same wire encodings read back); the counters' rows keep none.
      expect(await partitions(client, P)).toEqual([
        "metrics_rollup_part_default",
        "metrics_rollup_part_p20261101",
        "metrics_rollup_part_p20261102",
      ]);
      const moved = await client.$queryRaw<Array<{ part: string; minute: Date; encoded: Uint8Array }>>`
        SELECT tableoid::regclass::text AS part, minute, encoded FROM metrics_rollup_part ORDER BY id`;
      expect(moved.map((r) => ({ ...r, encoded: rollupPartColumn.read(r.encoded) }))).toEqual([
        { part: "metrics_rollup_part_p20261101", minute: new Date(minutes[0]!), encoded: { compute: h, total: h } },
        { part: "metrics_rollup_part_p20261102", minute: new Date(minutes[2]!), encoded: { compute: a } },
        { part: "metrics_rollup_part_p20261102", minute: new Date(minutes[2]!), encoded: { compute: b } },
      ]);
      // Stored in the row (no TOAST), in every partition.
      expect(
        await client.$queryRaw`SELECT DISTINCT a.attstorage::text AS storage FROM pg_attribute a
          JOIN pg_class c ON c.oid = a.attrelid WHERE c.relname LIKE 'metrics_rollup_part%' AND a.attname IN ('encoded', 'deploymentId')`,
      ).toEqual([{ storage: "m" }]);
      expect(await client.metricsRollup.count({ where: { histograms: { equals: {} } } })).toBe(3);
      expect(
        await client.$queryRaw`SELECT relkind::text AS kind FROM pg_class WHERE relname = 'metrics_rollup'`,
      ).toEqual([{ kind: "p" }]);
      expect(await client.$queryRaw`SELECT to_regclass('metrics_rollup_unpartitioned')::text AS t`).toEqual([
        { t: null },
      ]);
    } finally {
      await client.$disconnect();
      rmSync(before, { recursive: true, force: true });
      await database.drop();
    }
  });
});
