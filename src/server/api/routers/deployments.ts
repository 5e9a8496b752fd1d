import { z } from "zod";
import { createTrpcRouter, operatorProcedure, sreProcedure } from "@/server/api/trpc";
import { deploymentTimeline, getDeployment, listDeployableVersions } from "@/server/services/agents-query-service";
import { changeDeploymentVersion, deployModel, undeployModel } from "@/server/services/deployments-service";

const id = z.string().min(1);

export const deploymentsRouter = createTrpcRouter({
  get: operatorProcedure.input(z.object({ id })).query(({ input }) => getDeployment(input.id)),
  versions: operatorProcedure.query(() => listDeployableVersions()),
  timeline: operatorProcedure.input(z.object({ id })).query(({ input }) => deploymentTimeline(input.id)),
  deploy: sreProcedure
    .input(
      z.object({
        agentId: id,
        modelVersionId: id,
        cpus: z.array(z.number().int().min(0).max(65535)).min(1, "choose at least one CPU").max(4096),
      }),
    )
    .mutation(({ ctx, input }) => deployModel(ctx.caller, input)),
  undeploy: sreProcedure
    .input(z.object({ deploymentId: id }))
    .mutation(({ ctx, input }) => undeployModel(ctx.caller, input)),
  changeVersion: sreProcedure
    .input(z.object({ deploymentId: id, modelVersionId: id }))
    .mutation(({ ctx, input }) => changeDeploymentVersion(ctx.caller, input)),
});
