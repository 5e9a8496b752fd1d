import { publicProcedure, createTrpcRouter } from "@/server/api/trpc";
import { checkHealth } from "@/server/services/system-service";

export const systemRouter = createTrpcRouter({
  health: publicProcedure.query(() => checkHealth()),
});
