import { createTrpcRouter, createCallerFactory } from "@/server/api/trpc";
import { agentTokensRouter } from "@/server/api/routers/agent-tokens";
import { apiTokensRouter } from "@/server/api/routers/api-tokens";
import { agentsRouter } from "@/server/api/routers/agents";
import { alertsRouter } from "@/server/api/routers/alerts";
import { deploymentsRouter } from "@/server/api/routers/deployments";
import { profilesRouter } from "@/server/api/routers/profiles";
import { proposalsRouter } from "@/server/api/routers/proposals";
import { enrollmentTokensRouter } from "@/server/api/routers/enrollment-tokens";
import { estimatorRouter } from "@/server/api/routers/estimator";
import { auditRouter } from "@/server/api/routers/audit";
import { modelsRouter } from "@/server/api/routers/models";
import { systemRouter } from "@/server/api/routers/system";
import { usersRouter } from "@/server/api/routers/users";
import { loadTestsRouter } from "@/server/api/routers/load-tests";
import { batchingRouter } from "@/server/api/routers/batching";
import { costRouter } from "@/server/api/routers/cost";
import { planningRouter } from "@/server/api/routers/planning";
import { notificationsRouter } from "@/server/api/routers/notifications";
import { overviewRouter } from "@/server/api/routers/overview";

export const appRouter = createTrpcRouter({
  system: systemRouter,
  users: usersRouter,
  loadTests: loadTestsRouter,
  audit: auditRouter,
  agentTokens: agentTokensRouter,
  apiTokens: apiTokensRouter,
  models: modelsRouter,
  enrollmentTokens: enrollmentTokensRouter,
  agents: agentsRouter,
  deployments: deploymentsRouter,
  profiles: profilesRouter,
  proposals: proposalsRouter,
  estimator: estimatorRouter,
  alerts: alertsRouter,
  batching: batchingRouter,
  cost: costRouter,
  planning: planningRouter,
  notifications: notificationsRouter,
  overview: overviewRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
