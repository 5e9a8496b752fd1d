import { z } from "zod";
import { createTrpcRouter, sreProcedure } from "@/server/api/trpc";
import {
  createEnrollmentToken,
  listEnrollmentTokens,
  revokeEnrollmentToken,
} from "@/server/services/enrollment-tokens-service";

export const enrollmentTokensRouter = createTrpcRouter({
  list: sreProcedure.query(() => listEnrollmentTokens()),
  create: sreProcedure
    .input(
      z.object({
        name: z.string().trim().min(1, "must not be empty").max(100),
        // Left out: 30 days; null: never expires.
        expiresAt: z.coerce.date().nullable().optional(),
        maxUses: z.number().int().min(1).max(100_000).optional(),
      }),
    )
    .mutation(({ ctx, input }) => createEnrollmentToken(ctx.caller, input)),
  revoke: sreProcedure
    .input(z.object({ id: z.string().min(1) }))
    .mutation(({ ctx, input }) => revokeEnrollmentToken(ctx.caller, input)),
});
