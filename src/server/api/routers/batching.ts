import { z } from "zod";
import { authenticatedProcedure, createTrpcRouter, operatorProcedure, sreProcedure } from "@/server/api/trpc";
import { SWEEP_LIMITS } from "@/server/services/batching-sweep-plan";
import { batchingContext } from "@/server/services/batching-context-service";
import { cancelSweep, listSweeps, proposeSweep } from "@/server/services/batching-sweeps-service";

const id = z.string().min(1).max(64);
const candidate = z.object({
  windowMs: z.number().min(0, "the window must be ≥ 0 ms").max(60_000, "the window must be at most 60,000 ms"),
  maxBatch: z
    .number()
    .int("the max batch must be a whole number")
    .min(1, "the max batch must be ≥ 1")
    .max(65_536, "the max batch must be at most 65,536"),
});

export const batchingRouter = createTrpcRouter({
  // The batching page's deployments, complete profiles and (for a chosen deployment) its sweeps: every role reads.
  context: authenticatedProcedure
    .input(z.object({ deploymentId: id.optional() }))
    .query(({ input }) => batchingContext(input)),
  sweeps: authenticatedProcedure
    .input(z.object({ deploymentId: id.optional() }))
    .query(({ input }) => listSweeps(input)),
  // A sweep is a proposal: ML engineers and SREs propose it, an SRE approves it through proposals.approve.
  proposeSweep: operatorProcedure
    .input(
      z.object({
        deploymentId: id,
        candidates: z
          .array(candidate)
          .min(1, "give at least one (window, max batch) candidate")
          .max(SWEEP_LIMITS.maxCandidates, `at most ${SWEEP_LIMITS.maxCandidates} candidates per sweep`),
        durationS: z
          .number()
          .int("the duration per point must be whole seconds")
          .min(SWEEP_LIMITS.minDurationS, `the duration per point must be at least ${SWEEP_LIMITS.minDurationS} s`)
          .max(SWEEP_LIMITS.maxDurationS, `the duration per point must be at most ${SWEEP_LIMITS.maxDurationS} s`),
        ratePerS: z
          .number()
          .positive("the offered rate must be > 0")
          .max(SWEEP_LIMITS.maxRatePerS, `the offered rate must be at most ${SWEEP_LIMITS.maxRatePerS} requests/s`),
        reason: z.string().trim().min(1, "say why").max(500),
      }),
    )
    .mutation(({ ctx, input }) => proposeSweep(ctx.caller, input)),
  // An SRE stops a running sweep; the deployment's configuration is restored as a new generation.
  cancelSweep: sreProcedure
    .input(z.object({ sweepId: id }))
    .mutation(({ ctx, input }) => cancelSweep(ctx.caller, input)),
});
