// What a proposal keeps of its plan trial (the proposal.trial JSON column): every candidate's isolated and corrected
// prediction beside what the trial measured, the verdict, and the contention model the correction used.
import { z } from "zod";

const lineSchema = z.object({
  intercept: z.number(),
  slope: z.number(),
  points: z.number().int(),
  distinctX: z.number().int(),
});

export const contentionModelSchema = z.object({
  contention: lineSchema,
  overhead: lineSchema,
  observations: z.number().int().min(0),
  rmsRelativeError: z.number().nullable(),
});

export const trialCandidateViewSchema = z.object({
  key: z.string(),
  groups: z.array(z.object({ count: z.number().int(), threads: z.number().int(), batch: z.number().int() })),
  roles: z.array(z.string()),
  rank: z.number().int().nullable(),
  /** The profile's prediction for one instance alone (the slowest instance's L[t][b]). */
  predictedMs: z.number().nullable(),
  /** With this host's contention and per-batch overhead (fitted on its earlier trials). */
  correctedMs: z.number().nullable(),
  /** The dispatcher's batch latency: mean of the round means and its 95% interval. */
  measured: z
    .object({
      meanMs: z.number(),
      lowerMs: z.number(),
      upperMs: z.number(),
      rounds: z.number().int(),
      instanceMs: z.number(),
      overheadMs: z.number(),
    })
    .nullable(),
  error: z.string().nullable(),
});
export type TrialCandidateView = z.infer<typeof trialCandidateViewSchema>;

export const trialVerdictSchema = z.object({
  proposedKey: z.string(),
  predictedKey: z.string(),
  measuredBestKey: z.string(),
  contradicted: z.boolean(),
  differenceMs: z.object({ mean: z.number(), lower: z.number(), upper: z.number() }).nullable(),
  why: z.string(),
});

export const proposalTrialSchema = z.object({
  state: z.enum(["queued", "running", "done", "failed", "cancelled"]),
  jobId: z.string(),
  estimateMs: z.number(),
  candidates: z.array(trialCandidateViewSchema),
  verdict: trialVerdictSchema.nullable(),
  /** Set when the trial changed the proposal: the plan the optimizer had chosen. */
  replaced: z
    .object({
      key: z.string(),
      items: z.array(z.object({ count: z.number(), threads: z.number(), batch: z.number() }).loose()),
    })
    .nullable(),
  costS: z.number().nullable(),
  error: z.string().nullable(),
  stoppedEarly: z.boolean(),
  model: contentionModelSchema.nullable(),
});
export type ProposalTrial = z.infer<typeof proposalTrialSchema>;
