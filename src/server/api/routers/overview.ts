import { authenticatedProcedure, createTrpcRouter } from "@/server/api/trpc";
import { getOverview } from "@/server/services/overview-service";

export const overviewRouter = createTrpcRouter({
  // Every signed-in user; the service leaves out each tile the caller's role may not read.
  get: authenticatedProcedure.query(({ ctx }) => getOverview(ctx.user.role)),
});
