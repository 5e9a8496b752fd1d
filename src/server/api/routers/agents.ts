import { z } from "zod";
import { createTrpcRouter, operatorProcedure, sreProcedure } from "@/server/api/trpc";
import { listAgents } from "@/server/services/agents-query-service";
import { decommissionAgent } from "@/server/services/deployments-service";

export const agentsRouter = createTrpcRouter({
  list: operatorProcedure.query(() => listAgents()),
  decommission: sreProcedure
    .input(z.object({ agentId: z.string().min(1) }))
    .mutation(({ ctx, input }) => decommissionAgent(ctx.caller, input)),
});
