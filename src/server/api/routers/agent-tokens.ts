import { z } from "zod";
import { createTrpcRouter, sreProcedure } from "@/server/api/trpc";
import { createAgentToken, listAgentTokens, revokeAgentToken } from "@/server/services/agent-tokens-service";

// SREs and admins (DESIGN.md: "Agent tokens: sre and admin").
export const agentTokensRouter = createTrpcRouter({
  list: sreProcedure.query(() => listAgentTokens()),
  create: sreProcedure
    .input(z.object({ name: z.string().trim().min(1, "must not be empty").max(100) }))
    .mutation(({ ctx, input }) => createAgentToken(ctx.caller, input)),
  revoke: sreProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => revokeAgentToken(ctx.caller, input)),
});
