// The JSON columns of agent jobs: job.params as each kind stores it (the params the agent is sent, and what the
// control plane keeps beside them), and job.result where a kind stores one.
import { z } from "zod";
import {
  loadTestJobParamsSchema,
  planTrialParamsSchema,
  planTrialResultSchema,
  profileJobParamsSchema,
  profileProbeParamsSchema,
} from "./agent-jobs";
import { jsonColumn } from "./json-column";
import { jsonValueSchema } from "./json-value";
import { contentionModelSchema } from "./plan-trial";

const agentId = z.string().min(1);

/** job.params of a profiling job. */
export const profileJobColumn = jsonColumn("job.params (profile)", profileJobParamsSchema.extend({ agentId }));

/** job.params of a load test. */
export const loadTestJobColumn = jsonColumn("job.params (load_test)", loadTestJobParamsSchema.extend({ agentId }));

/** job.params of a duration probe, with the version and deployment it was asked for. */
export const profileProbeJobColumn = jsonColumn(
  "job.params (profile_probe)",
  profileProbeParamsSchema.extend({ agentId, modelVersionId: z.string(), deploymentId: z.string() }),
);
export type StoredProbeParams = z.infer<typeof profileProbeJobColumn.schema>;

/** job.result of a duration probe: its one cell's estimate. */
export const profileProbeResultColumn = jsonColumn(
  "job.result (profile_probe)",
  z
    .object({
      meanMs: z.number().nonnegative(),
      p50Ms: z.number().nonnegative(),
      iterations: z.number().int().min(1),
      threads: z.number().int().min(1),
      batch: z.number().int().min(1),
    })
    .nullable(),
);

const groupSchema = z.object({
  count: z.number().int().min(1),
  threads: z.number().int().min(1),
  batch: z.number().int().min(1),
});

/** A trial's candidate as the control plane planned it (src/core/trial/candidate-plans.ts CandidatePlan). */
const trialCandidateSchema = z.object({
  key: z.string(),
  groups: z.array(groupSchema),
  predictedMs: z.number().nullable(),
  roles: z.array(z.enum(["rank", "all-threads", "running"])),
  rank: z.number().int().nullable(),
  /** Each group with its profiled L[t][b] (absent where the profile lacks the cell). */
  groupLatencies: z.array(groupSchema.extend({ latencyMs: z.number().optional() })),
  correctedMs: z.number().nullable(),
});

/** job.params of a plan trial: what the agent runs, and the candidates, proposal and contention model it was planned with. */
export const planTrialJobColumn = jsonColumn(
  "job.params (plan_trial)",
  planTrialParamsSchema.extend({
    agentId,
    proposalId: z.string(),
    deploymentId: z.string(),
    cores: z.number().int().min(1),
    estimateMs: z.number().nonnegative(),
    candidates: z.array(trialCandidateSchema),
    model: contentionModelSchema.nullable(),
  }),
);
export type StoredTrialParams = z.infer<typeof planTrialJobColumn.schema>;

/** job.result of a plan trial: what the agent measured (null until it reports). */
export const planTrialResultColumn = jsonColumn("job.result (plan_trial)", planTrialResultSchema.nullable());

/** job.params of a model-zoo registration (a control-plane job): the fields its deduplication reads. */
export const zooRegistrationJobColumn = jsonColumn(
  "job.params (zoo registration)",
  z
    .looseObject({
      zooName: z.string(),
      seed: z.number(),
      builderVersion: z.string(),
    })
    .partial(),
);

/**
 * job.params of a control-plane job (src/server/jobs/job-runner.ts): the runner is generic over its kinds, so the
 * column holds JSON; each kind reads its own params (the zoo registration's above).
 */
export const controlPlaneJobParamsColumn = jsonColumn("job.params (control plane)", jsonValueSchema);

/** job.result of a control-plane job: what its run returned, as JSON (null when it returned nothing). */
export const controlPlaneJobResultColumn = jsonColumn("job.result (control plane)", jsonValueSchema);
