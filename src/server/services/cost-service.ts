// Cost reports (issue #21): hardware prices (admins set them, audited) and the report the /cost page reads — per
// deployed model its measured capacity (load tests), actual goodput (heartbeat rollups), what both cost, the
// replicas and month a peak needs, and what Packrat's running configuration saves over ⟨1, T, B⟩ (profiles).
import { COST_PERIODS, type CostPeriod } from "@/contracts/cost-report";
import { Prisma, type PrismaClient } from "@/generated/prisma/client";
import { loadTestReportColumn, loadTestSpecColumn } from "@/contracts/load-test-columns";
import { planBatchSize, servingPlanSchema } from "@/contracts/serving-plan";
import { allThreadsShape, evaluateBaseline, profileLatencyLookup } from "@/core/optimizer/baselines";
import { agentTopology } from "@/contracts/host-topology";
import type { StoredJsonValue } from "@/contracts/json-column";
import { recordAudit, userActor, type AuditActor } from "@/server/audit/record-audit";
import { db } from "@/server/db/client";
import { invalidInput, notFound } from "@/server/errors/domain-errors";
import {
  breakEvenBetween,
  costRow,
  measuredCapacity,
  periodUsage,
  totals,
  trendSeries,
  type BreakEvenSide,
  type CostOptions,
  type CostRow,
  type ProfiledComparison,
  type StoredLoadTest,
  type UsagePiece,
} from "./cost-report";
import { budgetCores } from "./deployment-plans";
import { hardwareClassOf as profilingHardwareClassOf } from "./profiling-service";
import { PriceHistory } from "./price-history";
import { compatibility } from "./profiles-query-service";
import type { ServiceCaller } from "./users-service";

/** The profiles' hardware class; an agent whose topology cannot be read is still listed (by CPU model) rather than
 * failing the whole report. */
function hardwareClassOf(agent: { cpuModel: string; topology: StoredJsonValue }): string {
  try {
    return profilingHardwareClassOf(agent);
  } catch {
    return `${agent.cpuModel.trim()} · topology unknown`;
  }
}

/** What npm start seeds for the local hardware class with demo users on: roughly a 4-vCPU cloud instance. */
export const DEMO_HOURLY_USD = 0.17;
export const DEMO_PRICE_NOTE = "demo price seeded by npm start (demo users on): not a real price";

export async function listPrices(prisma: PrismaClient = db()) {
  const [prices, agents] = await Promise.all([
    prisma.hardwarePrice.findMany({ orderBy: { hardwareClass: "asc" } }),
    prisma.agent.findMany({
      where: { decommissionedAt: null },
      select: { cpuModel: true, topology: true, hostName: true },
    }),
  ]);
  const hosts = new Map<string, string[]>();
  for (const a of agents) {
    const cls = hardwareClassOf(a);
    hosts.set(cls, [...(hosts.get(cls) ?? []), a.hostName]);
  }
  const classes = [...new Set([...prices.map((p) => p.hardwareClass), ...hosts.keys()])].sort();
  return classes.map((hardwareClass) => {
    const p = prices.find((x) => x.hardwareClass === hardwareClass);
    return {
      hardwareClass,
      hosts: hosts.get(hardwareClass) ?? [],
      hourlyUsd: p?.hourlyUsd ?? null,
      demo: p?.demo ?? false,
      note: p?.note ?? "",
      updatedAt: p?.updatedAt ?? null,
    };
  });
}

type Tx = Prisma.TransactionClient;

/** The history row of a price change, in the caller's transaction: effective from now, taken after the price row was
 * written (its row lock held), so concurrent changes of one class are ordered as they committed. */
function recordPriceChange(
  tx: Tx,
  change: { hardwareClass: string; hourlyUsd: number | null; demo: boolean; note: string; changedById: string | null },
) {
  return tx.hardwarePriceChange.create({ data: { ...change, effectiveFrom: new Date() } });
}

/** Every price change of one class or all, newest first, with who made it (name and email only). */
export async function listPriceHistory(hardwareClass?: string, prisma: PrismaClient = db()) {
  const changes = await prisma.hardwarePriceChange.findMany({
    where: hardwareClass ? { hardwareClass } : {},
    orderBy: [{ effectiveFrom: "desc" }, { id: "desc" }],
  });
  const ids = [...new Set(changes.map((c) => c.changedById).filter((id): id is string => id !== null))];
  const users = ids.length
    ? await prisma.user.findMany({ where: { id: { in: ids } }, select: { id: true, name: true, email: true } })
    : [];
  return changes.map((c) => {
    const u = users.find((x) => x.id === c.changedById);
    return {
      id: c.id.toString(),
      hardwareClass: c.hardwareClass,
      hourlyUsd: c.hourlyUsd,
      demo: c.demo,
      note: c.note,
      effectiveFrom: c.effectiveFrom,
      changedBy: u ? { name: u.name, email: u.email } : null,
    };
  });
}

export async function setPrice(
  caller: ServiceCaller,
  input: { hardwareClass: string; hourlyUsd: number; note?: string },
  prisma: PrismaClient = db(),
) {
  const hardwareClass = input.hardwareClass.trim();
  if (!hardwareClass) throw invalidInput("hardwareClass must not be empty", { field: "hardwareClass" });
  if (!Number.isFinite(input.hourlyUsd) || input.hourlyUsd <= 0)
    throw invalidInput(`hourlyUsd must be a positive number of dollars per hour, got ${input.hourlyUsd}`, {
      field: "hourlyUsd",
    });
  return prisma.$transaction(async (tx) => {
    const before = await tx.hardwarePrice.findUnique({ where: { hardwareClass } });
    const row = await tx.hardwarePrice.upsert({
      where: { hardwareClass },
      create: {
        hardwareClass,
        hourlyUsd: input.hourlyUsd,
        note: input.note ?? "",
        demo: false,
        updatedById: caller.user.id,
      },
      // An admin's price is a real one: it is no longer the demo price.
      update: { hourlyUsd: input.hourlyUsd, note: input.note ?? "", demo: false, updatedById: caller.user.id },
    });
    await recordPriceChange(tx, {
      hardwareClass,
      hourlyUsd: row.hourlyUsd,
      demo: false,
      note: row.note,
      changedById: caller.user.id,
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "hardware_price.set",
      target: { type: "hardware_class", id: hardwareClass, label: hardwareClass },
      before: before ? { hourlyUsd: before.hourlyUsd, demo: before.demo, note: before.note } : undefined,
      after: { hourlyUsd: row.hourlyUsd, note: row.note },
      requestId: caller.requestId,
    });
    return { hardwareClass: row.hardwareClass, hourlyUsd: row.hourlyUsd, demo: row.demo, note: row.note };
  });
}

export async function removePrice(
  caller: ServiceCaller,
  input: { hardwareClass: string },
  prisma: PrismaClient = db(),
) {
  return prisma.$transaction(async (tx) => {
    const before = await tx.hardwarePrice.findUnique({ where: { hardwareClass: input.hardwareClass } });
    if (!before) throw notFound("price for hardware class", input.hardwareClass);
    await tx.hardwarePrice.delete({ where: { hardwareClass: input.hardwareClass } });
    // From now on the class has no price: later usage is unpriced, earlier usage keeps the price it had.
    await recordPriceChange(tx, {
      hardwareClass: input.hardwareClass,
      hourlyUsd: null,
      demo: false,
      note: "",
      changedById: caller.user.id,
    });
    await recordAudit(tx, {
      actor: userActor(caller.user),
      action: "hardware_price.remove",
      target: { type: "hardware_class", id: input.hardwareClass, label: input.hardwareClass },
      before: { hourlyUsd: before.hourlyUsd, demo: before.demo, note: before.note },
      requestId: caller.requestId,
    });
    return { ok: true as const };
  });
}

/** npm start with demo users on: a labelled demo price for the local agent's class, unless it has a price. */
export async function ensureDemoPrice(
  agentId: string,
  actor: AuditActor,
  prisma: PrismaClient = db(),
): Promise<string | null> {
  const agent = await prisma.agent.findUnique({ where: { id: agentId } });
  if (!agent) return null;
  const hardwareClass = hardwareClassOf(agent);
  return prisma.$transaction(async (tx) => {
    if (await tx.hardwarePrice.findUnique({ where: { hardwareClass } })) return null;
    await tx.hardwarePrice.create({
      data: { hardwareClass, hourlyUsd: DEMO_HOURLY_USD, demo: true, note: DEMO_PRICE_NOTE },
    });
    await recordPriceChange(tx, {
      hardwareClass,
      hourlyUsd: DEMO_HOURLY_USD,
      demo: true,
      note: DEMO_PRICE_NOTE,
      changedById: null,
    });
    await recordAudit(tx, {
      actor,
      action: "hardware_price.set",
      target: { type: "hardware_class", id: hardwareClass, label: hardwareClass },
      after: { hourlyUsd: DEMO_HOURLY_USD, demo: true },
    });
    return hardwareClass;
  });
}

export interface CostReportParams {
  period: CostPeriod;
  modelId?: string;
  hardwareClass?: string;
  peakPerS?: Record<string, number>;
  headroomMultiplier: number;
  redundancyK: number;
  breakEven?: { modelId: string; classA: string; classB: string; capacityA?: number; capacityB?: number };
  now?: Date;
  /** Start of the window instead of `period` before now (the Overview's month to date); not a tRPC input. */
  since?: Date;
}

type DeploymentRow = Prisma.DeploymentGetPayload<{
  include: { agent: true; modelVersion: { include: { model: true } } };
}>;

/** The running plan against ⟨1, T, B⟩ on the newest compatible complete profile (mean latencies of its cells). */
async function profiledComparison(
  d: DeploymentRow,
  prisma: PrismaClient,
): Promise<ProfiledComparison | { missing: string }> {
  const generation = d.observedGeneration || d.generation;
  const gen = await prisma.deploymentGeneration.findUnique({
    where: { deploymentId_generation: { deploymentId: d.id, generation } },
  });
  const parsedPlan = gen ? servingPlanSchema.safeParse(gen.plan) : null;
  if (!gen || !parsedPlan?.success) return { missing: `no readable plan for generation ${generation}` };
  const plan = parsedPlan.data;
  const profiles = await prisma.profile.findMany({
    where: { modelVersionId: d.modelVersionId, status: "complete" },
    orderBy: { createdAt: "desc" },
    take: 10,
    select: { id: true },
  });
  for (const p of profiles) {
    if (!(await compatibility(p.id, d.id, prisma)).compatible) continue;
    const cells = await prisma.profileCell.findMany({ where: { profileId: p.id } });
    const lookup = profileLatencyLookup(
      cells.map((c) => ({ threads: c.threads, batch: c.batch, latencyMs: c.meanMs })),
    );
    const B = planBatchSize(plan);
    const T = budgetCores(agentTopology(d.agent), d.cpus);
    const running = evaluateBaseline(lookup, plan.instances, B, 1);
    const fallback = evaluateBaseline(lookup, allThreadsShape(T, B), B, 1);
    if (!running.available) return { missing: `profile ${p.id.slice(0, 8)} lacks the running configuration's cells` };
    if (!fallback.available) return { missing: `profile ${p.id.slice(0, 8)} lacks the ⟨1, ${T}, ${B}⟩ cell` };
    return {
      profileId: p.id,
      batchSize: B,
      cores: T,
      runningLabel: gen.label,
      runningLatencyMs: running.latencyMs,
      defaultLatencyMs: fallback.latencyMs,
    };
  }
  return {
    missing: profiles.length
      ? "no complete profile matches this deployment (hardware, runtime, core budget)"
      : "no complete profile of this version",
  };
}

const num = (v: unknown) => (typeof v === "bigint" ? Number(v) : typeof v === "number" ? v : Number(v ?? 0));

export async function getCostReport(params: CostReportParams, prisma: PrismaClient = db()) {
  const now = params.now ?? new Date();
  const periodS = COST_PERIODS[params.period];
  const since = params.since ?? new Date(now.getTime() - periodS * 1000);
  const peakSince = new Date(now.getTime() - 7 * 86_400_000);
  const [prices, history] = await Promise.all([
    prisma.hardwarePrice.findMany(),
    prisma.hardwarePriceChange
      .findMany({ select: { id: true, hardwareClass: true, hourlyUsd: true, demo: true, effectiveFrom: true } })
      .then((c) => new PriceHistory(c)),
  ]);
  // width_bucket's thresholds: as text, cast to the column's type (timestamp(3) holding UTC).
  const thresholds = history.thresholds.map((t) => new Date(t).toISOString());
  const all = await prisma.deployment.findMany({
    where: {
      removedAt: null,
      agent: { decommissionedAt: null },
      ...(params.modelId ? { modelVersion: { modelId: params.modelId } } : {}),
    },
    include: { agent: true, modelVersion: { include: { model: true } } },
    orderBy: { createdAt: "asc" },
  });
  const deployments = all.filter((d) => !params.hardwareClass || hardwareClassOf(d.agent) === params.hardwareClass);
  const ids = deployments.map((d) => d.id);
  const [peaks, tests, buckets] = await Promise.all([
    ids.length
      ? prisma.$queryRaw<Array<{ deploymentId: string; peak: number | null }>>`
      SELECT "deploymentId", MAX(("requestsCompleted" + "requestsRejected") * 1000.0 / "intervalMs") AS peak
      FROM metrics_rollup WHERE "deploymentId" IN (${Prisma.join(ids)}) AND minute >= ${peakSince} AND minute <= ${now} AND "intervalMs" > 0
      GROUP BY "deploymentId"`
      : [],
    prisma.loadTest.findMany({ where: { deploymentId: { in: ids }, status: "done" }, orderBy: { createdAt: "desc" } }),
    // The period's usage per trend bucket, deployment and price epoch (between two consecutive price changes of any
    // class): one price per piece, so past minutes are priced at the price in effect then.
    ids.length
      ? prisma.$queryRaw<
          Array<{
            start: Date;
            deploymentId: string;
            epoch: number;
            minutes: bigint;
            intervalMs: number;
            completed: bigint;
            rejected: bigint;
            withinSlo: bigint;
          }>
        >`
      SELECT date_trunc(${params.period === "24h" ? "hour" : "day"}, minute) AS start, "deploymentId",
        width_bucket(minute, ${thresholds}::timestamp(3)[]) AS epoch, COUNT(*) AS minutes, SUM("intervalMs") AS "intervalMs",
        SUM("requestsCompleted") AS completed, SUM("requestsRejected") AS rejected, SUM("requestsWithinSlo") AS "withinSlo"
      FROM metrics_rollup WHERE "deploymentId" IN (${Prisma.join(ids)}) AND minute >= ${since} AND minute <= ${now}
      GROUP BY 1, 2, 3 ORDER BY 1`
      : [],
  ]);
  const storedTests: Array<StoredLoadTest & { deploymentId: string }> = [];
  for (const t of tests) {
    // A report the page cannot read leaves out that test, never the whole report.
    const report = loadTestReportColumn.schema.safeParse(t.report);
    if (!report.success || report.data === null) continue;
    storedTests.push({
      id: t.id,
      deploymentId: t.deploymentId,
      modelVersionId: t.modelVersionId,
      generationAtStart: t.generationAtStart,
      generationAtEnd: t.generationAtEnd,
      spec: loadTestSpecColumn.read(t.spec),
      report: report.data,
      finishedAt: t.finishedAt,
    });
  }
  const options: CostOptions = {
    peakPerS: params.peakPerS ?? {},
    headroomMultiplier: params.headroomMultiplier,
    redundancyK: params.redundancyK,
  };
  const classOf = new Map(deployments.map((d) => [d.id, hardwareClassOf(d.agent)]));
  const pieces: UsagePiece[] = buckets.map((b) => ({
    start: new Date(b.start),
    deploymentId: b.deploymentId,
    price: history.priceInEpoch(classOf.get(b.deploymentId)!, num(b.epoch)),
    minutes: num(b.minutes),
    windowS: num(b.intervalMs) / 1000,
    completed: num(b.completed),
    rejected: num(b.rejected),
    withinSlo: num(b.withinSlo),
  }));
  const rows: CostRow[] = [];
  for (const d of deployments) {
    const model = d.modelVersion.model;
    const hardwareClass = hardwareClassOf(d.agent);
    const price = prices.find((p) => p.hardwareClass === hardwareClass);
    const slo =
      model.sloDeadlineMs !== null && model.sloQuantile !== null
        ? { deadlineMs: model.sloDeadlineMs, quantile: model.sloQuantile }
        : null;
    const generation = d.observedGeneration || d.generation;
    const { usage, priced } = periodUsage(pieces.filter((p) => p.deploymentId === d.id));
    const peak = peaks.find((p) => p.deploymentId === d.id)?.peak;
    rows.push(
      costRow(
        {
          deploymentId: d.id,
          modelId: model.id,
          modelName: model.name,
          modelVersion: d.modelVersion.number,
          hostName: d.agent.hostName,
          hardwareClass,
          generation,
          price: price ? { hourlyUsd: price.hourlyUsd, demo: price.demo } : null,
          slo,
          capacity: measuredCapacity(
            storedTests.filter((t) => t.deploymentId === d.id),
            { generation, modelVersionId: d.modelVersionId },
            slo,
          ),
          usage,
          priced,
          measuredPeakPerS: peak === null || peak === undefined ? null : num(peak),
          comparison: await profiledComparison(d, prisma),
        },
        options,
      ),
    );
  }
  const deployed = await prisma.deployment.findMany({
    where: { removedAt: null, agent: { decommissionedAt: null } },
    select: {
      agent: { select: { cpuModel: true, topology: true } },
      modelVersion: { select: { model: { select: { id: true, name: true } } } },
    },
  });
  const filterOptions = {
    models: [...new Map(deployed.map((d) => [d.modelVersion.model.id, d.modelVersion.model.name])).entries()]
      .map(([id, name]) => ({ id, name }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    hardwareClasses: [
      ...new Set([...deployed.map((d) => hardwareClassOf(d.agent)), ...prices.map((p) => p.hardwareClass)]),
    ].sort(),
  };
  return {
    generatedAt: now,
    period: params.period,
    filterOptions,
    since,
    until: now,
    headroomMultiplier: params.headroomMultiplier,
    redundancyK: params.redundancyK,
    rows,
    totals: totals(rows),
    trend: trendSeries(pieces),
    breakEven: params.breakEven ? breakEvenFor(params.breakEven, rows, prices) : null,
  };
}

/** Break-even for a model between two priced classes: measured capacity on each class, or an entered one. */
function breakEvenFor(
  input: NonNullable<CostReportParams["breakEven"]>,
  rows: readonly CostRow[],
  prices: ReadonlyArray<{ hardwareClass: string; hourlyUsd: number }>,
) {
  const side = (cls: string, entered: number | undefined): BreakEvenSide | { error: string } => {
    const price = prices.find((p) => p.hardwareClass === cls);
    if (!price) return { error: `${cls} has no price` };
    const measured = rows
      .filter((r) => r.modelId === input.modelId && r.hardwareClass === cls && r.capacity)
      .map((r) => r.capacity!.ratePerS);
    if (entered !== undefined)
      return { hardwareClass: cls, hourlyUsd: price.hourlyUsd, capacityPerS: entered, capacitySource: "entered" };
    if (measured.length)
      return {
        hardwareClass: cls,
        hourlyUsd: price.hourlyUsd,
        capacityPerS: Math.max(...measured),
        capacitySource: "measured",
      };
    return { error: `the model has no measured capacity on ${cls}: enter one` };
  };
  const a = side(input.classA, input.capacityA);
  const b = side(input.classB, input.capacityB);
  if ("error" in a || "error" in b)
    return {
      modelId: input.modelId,
      error: ["error" in a ? a.error : null, "error" in b ? b.error : null].filter(Boolean).join("; "),
    };
  return { modelId: input.modelId, ...breakEvenBetween(a, b) };
}

export type CostReportData = Awaited<ReturnType<typeof getCostReport>>;
