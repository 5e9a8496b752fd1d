import { z } from "zod";
import { loadTestSpecSchema } from "@/contracts/agent-jobs";
import { createTrpcRouter, operatorProcedure } from "@/server/api/trpc";
import { getLoadTest, listLoadTestsForDeployment, startLoadTest } from "@/server/services/load-tests-service";

const id = z.string().min(1);

export const loadTestsRouter = createTrpcRouter({
  // ML engineers and SREs start load tests; on a serving deployment only with confirmServing (checked, audited).
  start: operatorProcedure
    .input(z.object({ deploymentId: id, spec: loadTestSpecSchema, confirmServing: z.boolean().optional() }))
    .mutation(({ ctx, input }) => startLoadTest(ctx.caller, input)),
  get: operatorProcedure.input(z.object({ id })).query(({ input }) => getLoadTest(input.id)),
  listForDeployment: operatorProcedure
    .input(z.object({ deploymentId: id }))
    .query(({ input }) => listLoadTestsForDeployment(input.deploymentId)),
});
