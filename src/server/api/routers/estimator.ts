import { z } from "zod";
import { createTrpcRouter, operatorProcedure, sreProcedure } from "@/server/api/trpc";
import { setApprovalPolicy } from "@/server/services/approval-policy-service";
import { estimatorView } from "@/server/services/estimator-query-service";

const id = z.string().min(1).max(100);
const batch = z.number().int().min(1).max(65_536);

export const estimatorRouter = createTrpcRouter({
  // The deployment page's estimator section (its timeline, proposals and approval policy).
  view: operatorProcedure.input(z.object({ deploymentId: id })).query(({ input }) => estimatorView(input.deploymentId)),
  // SREs decide how the estimator's proposals are approved; audited.
  setPolicy: sreProcedure
    .input(
      z.object({
        deploymentId: id,
        mode: z.enum(["require_approval", "auto_approve"]),
        minBatch: batch,
        maxBatch: batch,
        singleStep: z.boolean(),
        changes: z.enum(["scale_only", "any"]),
        maxPerHour: z.number().int().min(0).max(1000),
      }),
    )
    .mutation(({ ctx, input }) => setApprovalPolicy(ctx.caller, input)),
});
