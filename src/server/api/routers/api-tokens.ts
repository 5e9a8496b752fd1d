import { z } from "zod";
import { authenticatedProcedure, createTrpcRouter } from "@/server/api/trpc";
import { roles } from "@/core/security/roles";
import { createApiToken, listApiTokens, MAX_TOKEN_DAYS, revokeApiToken } from "@/server/services/api-tokens-service";

// Personal API tokens: every signed-in user manages their own (the service scopes to the caller and refuses a
// role above the caller's).
export const apiTokensRouter = createTrpcRouter({
  list: authenticatedProcedure.query(({ ctx }) => listApiTokens(ctx.caller)),
  create: authenticatedProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, "must not be empty").max(100),
        role: z.enum(roles),
        expiresInDays: z.number().int().min(1).max(MAX_TOKEN_DAYS, `at most ${MAX_TOKEN_DAYS} days`),
      }),
    )
    .mutation(({ ctx, input }) => createApiToken(ctx.caller, input)),
  revoke: authenticatedProcedure
    .input(z.object({ id: z.string().min(1).max(200) }))
    .mutation(({ ctx, input }) => revokeApiToken(ctx.caller, input)),
});
