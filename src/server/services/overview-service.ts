// The Overview page's read model: the fleet at a glance, each tile only for a role that may read the page it
// summarizes (the same roles the access matrix gives that page's procedure), plus the serving loop as a
// checklist until the first proposal was applied.
import type { PrismaClient } from "@/generated/prisma/client";
import { servingLoop, type LoopChecklist } from "@/core/overview/serving-loop";
import { accessMatrix } from "@/server/api/access-matrix";
import type { Role } from "@/core/security/roles";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { liveFigures } from "./agents-query-service";
import { countAlerts } from "./alerts-service";
import { getCostReport } from "./cost-service";

/** Each tile, and the procedure behind the page it links to: a role sees the tile iff it may call that. */
export const overviewTiles = {
  agents: "agents.list",
  deployments: "agents.list",
  jobs: "agents.list",
  approvals: "proposals.list",
  alerts: "alerts.count",
  cost: "cost.report",
  loop: "proposals.list",
} as const satisfies Record<string, keyof typeof accessMatrix>;
export type OverviewTile = keyof typeof overviewTiles;

export function mayRead(role: Role, tile: OverviewTile): boolean {
  const allowed = accessMatrix[overviewTiles[tile]];
  return allowed === "public" || allowed!.includes(role);
}

export interface OverviewDeployment {
  id: string;
  modelName: string;
  version: number;
  hostName: string;
  state: string;
  generation: number;
  observedGeneration: number;
  ratePerS: number;
  p99Ms: number | null;
  slo: { deadlineMs: number; quantile: number } | null;
  /** Share of the last minutes' requests within the SLO's deadline, against the SLO's quantile; null: no traffic or no SLO. */
  withinSloShare: number | null;
  meetsSlo: boolean | null;
}

export interface OverviewJob {
  id: string;
  kind: string;
  state: string;
  progress: number;
  message: string | null;
  href: string;
}

export interface Overview {
  agents?: { online: number; offline: number };
  deployments?: OverviewDeployment[];
  liveRatePerS?: number;
  jobs?: OverviewJob[];
  approvals?: { pending: number };
  alerts?: { open: number; openCritical: number; unresolved: number };
  cost?: { since: Date; costUsd: number; deployments: number; unpriced: number };
  loop?: LoopChecklist;
}

const LIVE_MINUTES = 5;

export async function getOverview(role: Role, prisma: PrismaClient = db(), now = new Date()): Promise<Overview> {
  const may = (tile: OverviewTile) => mayRead(role, tile);
  const out: Overview = {};
  const tasks: Promise<unknown>[] = [];

  if (may("agents") || may("deployments")) {
    tasks.push(
      (async () => {
        const agents = await prisma.agent.findMany({
          where: { decommissionedAt: null },
          select: {
            hostName: true,
            lastHeartbeatAt: true,
            deployments: {
              where: { removedAt: null },
              orderBy: { createdAt: "asc" },
              include: { modelVersion: { include: { model: true } } },
            },
          },
        });
        const offlineAfter = env().AGENT_OFFLINE_AFTER_MS;
        const online = agents.filter(
          (a) => a.lastHeartbeatAt && now.getTime() - a.lastHeartbeatAt.getTime() < offlineAfter,
        ).length;
        out.agents = { online, offline: agents.length - online };
        const deployments = agents.flatMap((a) => a.deployments.map((d) => ({ d, hostName: a.hostName })));
        const figures = await liveFigures(
          deployments.map(({ d }) => d.id),
          LIVE_MINUTES,
          prisma,
        );
        out.deployments = deployments.map(({ d, hostName }) => {
          const live = figures.get(d.id)!;
          const model = d.modelVersion.model;
          const slo =
            model.sloDeadlineMs !== null && model.sloQuantile !== null
              ? { deadlineMs: model.sloDeadlineMs, quantile: model.sloQuantile }
              : null;
          return {
            id: d.id,
            modelName: model.name,
            version: d.modelVersion.number,
            hostName,
            state: d.state,
            generation: d.generation,
            observedGeneration: d.observedGeneration,
            ratePerS: live.ratePerS,
            p99Ms: live.p99Ms,
            slo,
            withinSloShare: slo ? live.withinSloShare : null,
            meetsSlo: slo && live.withinSloShare !== null ? live.withinSloShare >= slo.quantile : null,
          };
        });
        out.liveRatePerS = out.deployments.reduce((s, d) => s + d.ratePerS, 0);
      })(),
    );
  }

  if (may("jobs")) {
    tasks.push(
      (async () => {
        const jobs = await prisma.job.findMany({
          where: { state: { in: ["queued", "running"] } },
          orderBy: { createdAt: "asc" },
          take: 20,
        });
        const [profiles, loadTests] = await Promise.all([
          prisma.profile.findMany({
            where: { jobId: { in: jobs.map((j) => j.id) } },
            select: { id: true, jobId: true },
          }),
          prisma.loadTest.findMany({
            where: { jobId: { in: jobs.map((j) => j.id) } },
            select: { id: true, jobId: true },
          }),
        ]);
        out.jobs = jobs.map((j) => {
          const profile = profiles.find((p) => p.jobId === j.id);
          const loadTest = loadTests.find((t) => t.jobId === j.id);
          const href = profile ? `/profiles/${profile.id}` : loadTest ? `/load-tests/${loadTest.id}` : "/models";
          return { id: j.id, kind: j.kind, state: j.state, progress: j.progress, message: j.progressMessage, href };
        });
      })(),
    );
  }

  if (may("approvals"))
    tasks.push(
      prisma.proposal.count({ where: { state: "pending" } }).then((pending) => {
        out.approvals = { pending };
      }),
    );
  if (may("alerts"))
    tasks.push(
      countAlerts(prisma).then((alerts) => {
        out.alerts = alerts;
      }),
    );

  if (may("cost")) {
    tasks.push(
      (async () => {
        const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
        const report = await getCostReport(
          { period: "30d", since, headroomMultiplier: 1.3, redundancyK: 1, now },
          prisma,
        );
        out.cost = {
          since,
          costUsd: report.totals.all.costUsd,
          deployments: report.totals.all.deployments,
          unpriced: report.totals.all.unpriced,
        };
      })(),
    );
  }

  if (may("loop")) {
    tasks.push(
      (async () => {
        const [deployments, completeProfiles, proposals, appliedProposals] = await Promise.all([
          prisma.deployment.count({ where: { removedAt: null } }),
          prisma.profile.count({ where: { status: "complete" } }),
          prisma.proposal.count(),
          prisma.proposal.count({ where: { state: "applied" } }),
        ]);
        out.loop = servingLoop({ deployments, completeProfiles, proposals, appliedProposals });
      })(),
    );
  }

  await Promise.all(tasks);
  return out;
}
