import { publicProcedure, createTrpcRouter } from "@/server/api/trpc";
import {
  checkHealth,
  publicHealth,
  type HealthReport,
  type PublicHealthReport,
} from "@/server/services/system-service";

export const systemRouter = createTrpcRouter({
  // Signed-in users get the whole report (latency, versions, the database's error); anyone else only the verdict.
  health: publicProcedure.query(async ({ ctx }): Promise<HealthReport | PublicHealthReport> => {
    const report = await checkHealth();
    return (await ctx.getUser()) ? report : publicHealth(report);
  }),
});
