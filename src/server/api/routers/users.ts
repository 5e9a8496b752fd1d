import { z } from "zod";
import { adminProcedure, authenticatedProcedure, createTrpcRouter } from "@/server/api/trpc";
import { MIN_PASSWORD_LENGTH } from "@/server/auth/password";
import { env } from "@/server/env";
import { clientAddress } from "@/server/http/client-address";
import { roles } from "@/core/security/roles";
import {
  changeOwnPassword,
  createUser,
  listUsers,
  resetUserPassword,
  setUserActive,
  setUserRole,
} from "@/server/services/users-service";

const password = z.string().min(MIN_PASSWORD_LENGTH, `must be at least ${MIN_PASSWORD_LENGTH} characters`).max(128);
const userId = z.string().min(1);

export const usersRouter = createTrpcRouter({
  /** Who am I: any signed-in user. */
  me: authenticatedProcedure.query(({ ctx }) => ctx.user),
  /** Any signed-in user, their own password only: the current one must match; their other sessions end. */
  changePassword: authenticatedProcedure
    .input(z.object({ currentPassword: z.string().min(1, "must not be empty").max(128), newPassword: password }))
    .mutation(async ({ ctx, input }) =>
      changeOwnPassword(ctx.caller, {
        ...input,
        keepSessionId: await ctx.getSessionId(),
        client: clientAddress(ctx.headers, env().PACKRAT_TRUSTED_PROXY_HOPS),
      }),
    ),
  list: adminProcedure.query(() => listUsers()),
  create: adminProcedure
    .input(
      z.object({
        email: z.email("must be an email address"),
        name: z.string().trim().min(1, "must not be empty").max(200),
        role: z.enum(roles),
        password,
      }),
    )
    .mutation(({ ctx, input }) => createUser(ctx.caller, input)),
  setRole: adminProcedure
    .input(z.object({ userId, role: z.enum(roles) }))
    .mutation(({ ctx, input }) => setUserRole(ctx.caller, input)),
  setActive: adminProcedure
    .input(z.object({ userId, active: z.boolean() }))
    .mutation(({ ctx, input }) => setUserActive(ctx.caller, input)),
  resetPassword: adminProcedure
    .input(z.object({ userId, password }))
    .mutation(({ ctx, input }) => resetUserPassword(ctx.caller, input)),
});
