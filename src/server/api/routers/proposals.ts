import { z } from "zod";
import { authenticatedProcedure, createTrpcRouter, operatorProcedure, sreProcedure } from "@/server/api/trpc";
import { optimizeForDeployment } from "@/server/services/optimizer-service";
import { optimizerContext } from "@/server/services/optimizer-context-service";
import { planExportInputSchema } from "@/contracts/plan-export";
import { exportServingPlan } from "@/server/services/plan-export-service";
import { cancelPlanTrial } from "@/server/services/plan-trial-service";
import {
  approveProposal,
  listProposals,
  proposeFromOptimizer,
  rejectProposal,
  rollbackDeployment,
} from "@/server/services/proposals-service";

const id = z.string().min(1);
/** The batching validator's verdict as the Optimizer page ran it, kept with the proposal as evidence. */
const validation = z.object({
  pass: z.boolean(),
  checks: z
    .array(
      z.object({ id: z.string().max(40), status: z.enum(["pass", "fail", "skipped"]), message: z.string().max(500) }),
    )
    .max(12),
  note: z.string().max(500).optional(),
});

export const proposalsRouter = createTrpcRouter({
  // Everyone may read what is proposed and decided (managers included).
  list: authenticatedProcedure
    .input(
      z.object({
        state: z
          .enum(["trialing", "pending", "rejected", "expired", "withdrawn", "applying", "applied", "failed"])
          .optional(),
        deploymentId: id.optional(),
      }),
    )
    .query(({ input }) => listProposals(input)),
  optimize: authenticatedProcedure
    .input(
      z.object({
        deploymentId: id,
        profileId: id,
        batchSize: z.number().int().min(1).max(65536),
        batchTimeoutMs: z.number().min(0).max(60_000).optional(),
      }),
    )
    .query(({ input }) => optimizeForDeployment(input)),
  // The Optimizer page's choices (deployments, the chosen one's profiles with compatibility, its model's SLO).
  optimizerContext: authenticatedProcedure
    .input(z.object({ deploymentId: id.optional() }))
    .query(({ input }) => optimizerContext(input)),
  // A plan as another serving system's configuration (Triton, OVMS, KServe): everyone who may read the plan.
  exportPlan: authenticatedProcedure.input(planExportInputSchema).query(({ input }) => exportServingPlan(input)),
  create: operatorProcedure
    .input(
      z.object({
        deploymentId: id,
        profileId: id,
        batchSize: z.number().int().min(1).max(65536),
        batchTimeoutMs: z.number().min(0).max(60_000).optional(),
        reason: z.string().trim().min(1, "say why").max(500),
        validation: validation.optional(),
        trial: z.boolean().optional(),
      }),
    )
    .mutation(({ ctx, input }) => proposeFromOptimizer(ctx.caller, input)),
  // A proposal's plan trial: the proposer, an SRE or an admin may stop it (the service checks who).
  cancelTrial: operatorProcedure
    .input(z.object({ proposalId: id }))
    .mutation(({ ctx, input }) => cancelPlanTrial(ctx.caller, input)),
  approve: sreProcedure
    .input(z.object({ proposalId: id, comment: z.string().max(1000).optional() }))
    .mutation(({ ctx, input }) => approveProposal(ctx.caller, input)),
  reject: sreProcedure
    .input(z.object({ proposalId: id, comment: z.string().trim().min(1, "a comment is required to reject").max(1000) }))
    .mutation(({ ctx, input }) => rejectProposal(ctx.caller, input)),
  // Generations are int4 columns: a larger number reached the database as a 500 (fuzzer, issue #23).
  rollback: sreProcedure
    .input(
      z.object({
        deploymentId: id,
        toGeneration: z.number().int().min(1).max(2_147_483_647, "no deployment has that many generations"),
      }),
    )
    .mutation(({ ctx, input }) => rollbackDeployment(ctx.caller, input)),
});
