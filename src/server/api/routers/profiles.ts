import { z } from "zod";
import { PROFILE_BATCH_LIMIT } from "@/core/profiling/profile-grid";
import { RULE_PRESET_NAMES, ruleForPreset } from "@/core/profiling/stopping-rule";
import { createTrpcRouter, mlEngineerProcedure, operatorProcedure } from "@/server/api/trpc";
import {
  compatibility,
  estimateProfileDuration,
  getProfile,
  listProfilesForModel,
} from "@/server/services/profiles-query-service";
import { cancelProfileJob, createProfileJob, deleteProfile } from "@/server/services/profiling-service";
import { profilesForDeployment } from "@/server/services/profiles-deployment-service";
import { getProfileProbe, requestProfileProbe } from "@/server/services/profile-probe-service";

const id = z.string().min(1);

export const profilesRouter = createTrpcRouter({
  get: operatorProcedure.input(z.object({ id })).query(({ input }) => getProfile(input.id)),
  // The deployment page: its profiles with progress, and what the "Profile this deployment" form needs.
  forDeployment: operatorProcedure
    .input(z.object({ deploymentId: id }))
    .query(({ input }) => profilesForDeployment(input.deploymentId)),
  listForModel: operatorProcedure
    .input(z.object({ modelId: id }))
    .query(({ input }) => listProfilesForModel(input.modelId)),
  compatibility: operatorProcedure
    .input(z.object({ profileId: id, deploymentId: id }))
    .query(({ input }) => compatibility(input.profileId, input.deploymentId)),
  estimate: operatorProcedure
    .input(
      z.object({
        modelVersionId: id,
        threads: z.array(z.number().int().min(1).max(1024)).min(1).max(1024),
        batches: z.array(z.number().int().min(1).max(PROFILE_BATCH_LIMIT)).min(1).max(64),
        rule: z.enum(RULE_PRESET_NAMES),
      }),
    )
    .query(({ input }) => estimateProfileDuration({ ...input, rule: ruleForPreset(input.rule) })),
  // The form's duration probe: a few iterations at t = 1, b = 1 on the agent (the form's user is the one who may profile).
  probe: mlEngineerProcedure
    .input(
      z.object({
        deploymentId: id,
        modelVersionId: id.optional(),
        dimensions: z.record(z.string().max(64), z.number().int().min(1).max(1_000_000)).optional(),
      }),
    )
    .mutation(({ ctx, input }) => requestProfileProbe(ctx.caller, input)),
  probeResult: operatorProcedure.input(z.object({ probeId: id })).query(({ input }) => getProfileProbe(input.probeId)),
  create: mlEngineerProcedure
    .input(
      z.object({
        deploymentId: id,
        modelVersionId: id.optional(),
        threads: z.array(z.number().int().min(1).max(1024)).min(1).max(1024).optional(),
        batches: z.array(z.number().int().min(1).max(PROFILE_BATCH_LIMIT)).min(1).max(64).optional(),
        maxBatch: z.number().int().min(1).max(PROFILE_BATCH_LIMIT).optional(),
        rule: z.enum(RULE_PRESET_NAMES).default("decision"),
        cpus: z.enum(["free", "serving"]).optional(),
        dimensions: z.record(z.string().max(64), z.number().int().min(1).max(1_000_000)).optional(),
      }),
    )
    .mutation(({ ctx, input }) => createProfileJob(ctx.caller, input)),
  // The creator, an sre or an admin may cancel (checked in the service); ML engineers and SREs reach it.
  cancel: operatorProcedure
    .input(z.object({ profileId: id }))
    .mutation(({ ctx, input }) => cancelProfileJob(ctx.caller, input)),
  // Likewise for deleting: the creator, an sre or an admin (checked in the service).
  delete: operatorProcedure
    .input(z.object({ profileId: id }))
    .mutation(({ ctx, input }) => deleteProfile(ctx.caller, input)),
});
