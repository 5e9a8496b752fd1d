// The JSON columns of plan proposals (optimizer, estimator and batching-sweep proposals share the table).
import { z } from "zod";
import { estimatorDecisionSchema, estimatorTimelineSchema } from "./agent-protocol";
import { jsonColumn, storedDate } from "./json-column";
import { jsonValueSchema } from "./json-value";
import { proposalTrialSchema } from "./plan-trial";
import { servingPlanSchema } from "./serving-plan";

/** proposal.items: the proposed plan's ⟨count, threads, batch⟩ groups (a trial's replacement keeps each group's latency). */
export const proposalItemsSchema = z.array(
  z.object({
    count: z.number().int().min(1),
    threads: z.number().int().min(1),
    batch: z.number().int().min(1),
    latencyMs: z.number().nullable().optional(),
  }),
);
export const proposalItemsColumn = jsonColumn("proposal.items", proposalItemsSchema);

/** How the agent would move to the proposed plan (src/core/estimator/approval-policy.ts ChangeKind). */
const changeKindSchema = z.enum(["batch-only", "scale", "active-passive"]);

/** What an estimator proposal keeps of the agent's decision: the decision, the timeline up to it, and re-proposals. */
export const estimatorEvidenceSchema = z.object({
  agent: z.string(),
  decision: estimatorDecisionSchema,
  timeline: estimatorTimelineSchema,
  /** How often the agent proposed while this proposal was pending (1 = once). */
  reports: z.number().int().min(1),
  history: z.array(z.object({ at: storedDate, batchSize: z.number().int().positive() })),
});

/**
 * proposal.evidence: why the proposal was made. The optimizer's (baselines, why, perturbation, cores, validation),
 * the estimator's (above, with the profile planned on and the change kind) or a batching sweep's; the parts this
 * code reads are typed, the optimizer's own records are kept as the JSON they are.
 */
export const proposalEvidenceSchema = z
  .looseObject({
    estimator: estimatorEvidenceSchema,
    profile: z.object({ id: z.string(), createdAt: storedDate }).nullable(),
    change: changeKindSchema.nullable(),
    /** Why the proposal was offered without a plan trial (the policy's hourly rate spent), when it was. */
    trialNote: z.string().nullable(),
    baselines: jsonValueSchema,
    why: z.string().nullable(),
    perturbed: z.boolean(),
    idleCores: z.number(),
    cores: z.number(),
    validation: jsonValueSchema,
    sweep: jsonValueSchema,
  })
  .partial();
export type ProposalEvidence = z.infer<typeof proposalEvidenceSchema>;
export type EstimatorDecisionEvidence = z.infer<typeof estimatorEvidenceSchema>;
export const proposalEvidenceColumn = jsonColumn("proposal.evidence", proposalEvidenceSchema);

/** proposal.trial: what the proposal keeps of its plan trial (null when none was run). */
export const proposalTrialColumn = jsonColumn("proposal.trial", proposalTrialSchema.nullable());

/** proposal.plan: the proposed serving plan, allocated; `{}` for an estimator proposal no plan could be found for. */
export const proposalPlanColumn = jsonColumn("proposal.plan", z.union([servingPlanSchema, z.strictObject({})]));

/** proposal.autoApprovedPolicy: the approval policy that approved the proposal by itself (null: an SRE did, or none yet). */
export const autoApprovedPolicySchema = z.looseObject({
  mode: z.enum(["require_approval", "auto_approve"]),
  minBatch: z.number().int(),
  maxBatch: z.number().int(),
  singleStep: z.boolean(),
  changes: z.enum(["scale_only", "any"]),
  maxPerHour: z.number().int(),
  deploymentId: z.string(),
  /** Auto-approvals of the deployment in the hour before this one. */
  autoApprovalsBefore: z.number().int().min(0),
  updatedById: z.string().nullable(),
});
export type AutoApprovedPolicy = z.infer<typeof autoApprovedPolicySchema>;
export const autoApprovedPolicyColumn = jsonColumn("proposal.autoApprovedPolicy", autoApprovedPolicySchema.nullable());
