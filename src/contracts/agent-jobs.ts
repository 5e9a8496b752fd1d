// Jobs agents run for the control plane (profiling, load tests, probes, plan trials), claimed over the agent API:
// GET /jobs/next (long-poll), POST /jobs/{id}/cells (profiling progress, a probe's one cell), POST /jobs/{id}/result (a load test's
// report), POST /jobs/{id}/rounds (a plan trial's progress), POST /jobs/{id}/trial (its result), POST /jobs/{id}/finish.
import { z } from "zod";
import { jsonValueSchema } from "./json-value";
import { artifactFormatSchema } from "./artifact-format";
import { AGENT_ERROR_CODES } from "./agent-protocol";

/** Each job kind an agent runs, as the job row's `kind` stores it: the one definition the control plane, its
 *  routes and the agent share. */
export const PROFILE_JOB_KIND = "profile";
export const LOAD_TEST_JOB_KIND = "load_test";
export const PROFILE_PROBE_JOB_KIND = "profile_probe";
export const PLAN_TRIAL_JOB_KIND = "plan_trial";
export const AGENT_JOB_KINDS = [
  PROFILE_JOB_KIND,
  LOAD_TEST_JOB_KIND,
  PROFILE_PROBE_JOB_KIND,
  PLAN_TRIAL_JOB_KIND,
] as const;
export const agentJobKindSchema = z.enum(AGENT_JOB_KINDS);
export type AgentJobKind = z.infer<typeof agentJobKindSchema>;

/** GET /jobs/{id}/…: the job id in the path. */
export const jobPathParamsSchema = z.object({ id: z.string().min(1).max(128) });

/**
 * GET /jobs/next?kinds=profile,load_test: the job kinds the agent runs, comma-separated; without it, profiling only
 * (older agents). An unknown kind is refused with code unknown_job_kind and the known ones in `allowed` (an agent
 * newer than its control plane narrows its list to them); the message keeps the words older agents read.
 */
export const nextJobQuerySchema = z.object({
  kinds: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const asked = raw?.split(",") ?? [PROFILE_JOB_KIND];
      const unknown = asked.filter((k) => !(AGENT_JOB_KINDS as readonly string[]).includes(k));
      if (unknown.length > 0 || asked.length === 0) {
        ctx.addIssue({
          code: "custom",
          message: `unknown job kind ${unknown.join(", ") || "(none)"}; known: ${AGENT_JOB_KINDS.join(", ")}`,
          params: { code: AGENT_ERROR_CODES.unknownJobKind, allowed: [...AGENT_JOB_KINDS] },
        });
        return z.NEVER;
      }
      return asked as AgentJobKind[];
    }),
});
export type NextJobQuery = z.infer<typeof nextJobQuerySchema>;

const roundIterations = z.number().int().min(1).max(1000);
export const stoppingRuleSchema = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("adaptive"),
    warmup: z.number().int().min(0),
    minIterations: z.number().int().min(2),
    maxIterations: z.number().int().min(2),
    relativeHalfWidth: z.number().positive(),
    confidence: z.number().gt(0).lt(1),
    maxCellMs: z.number().positive(),
    roundIterations: roundIterations.optional(),
  }),
  z.object({
    kind: z.literal("fixed"),
    warmup: z.number().int().min(0),
    iterations: z.number().int().min(1),
    roundIterations: roundIterations.optional(),
  }),
  z.object({
    kind: z.literal("decision"),
    warmup: z.number().int().min(0),
    roundIterations,
    minRounds: z.number().int().min(2).max(1000),
    maxIterations: z.number().int().min(2),
    tolerance: z.number().positive().max(1),
    confidence: z.number().gt(0).lt(1),
    maxCellMs: z.number().positive(),
  }),
]);

/** A version's batch-axis overrides by tensor (null: no batch axis), as in the serving plan. */
const batchAxesSchema = z.record(z.string().min(1).max(256), z.number().int().min(0).max(64).nullable());

export const profileJobParamsSchema = z.object({
  profileId: z.string(),
  modelName: z.string(),
  artifactSha256: z.string().regex(/^[0-9a-f]{64}$/),
  artifactBytes: z.number().int().positive(),
  artifactFormat: artifactFormatSchema,
  threads: z.array(z.number().int().min(1)).min(1),
  batches: z.array(z.number().int().min(1)).min(1),
  dimensions: z.record(z.string(), z.number().int().min(1)),
  batchAxes: batchAxesSchema.optional(),
  rule: stoppingRuleSchema,
  budgetCpus: z.array(z.number().int().min(0)).min(1),
  /** Cells already measured (a job resumed after its agent restarted), with their estimate when known. */
  done: z.array(
    z.object({
      threads: z.number().int(),
      batch: z.number().int(),
      meanMs: z.number().nonnegative().optional(),
      ciHalfWidthMs: z.number().nonnegative().optional(),
    }),
  ),
});
export type ProfileJobParams = z.infer<typeof profileJobParamsSchema>;

const rate = z.number().positive().max(100_000);

/**
 * What a user asks of a load test. open: a constant or Poisson rate for a duration; ramp: the rate stepping from one
 * value to another in equal steps over the duration; search: the highest rate whose p99 stays within a limit (the
 * load generator's step ramp then bisection; "max rate under the SLO").
 */
export const loadTestSpecSchema = z.discriminatedUnion("mode", [
  z.object({
    mode: z.literal("open"),
    pattern: z.enum(["constant", "poisson"]),
    ratePerS: rate,
    durationS: z.number().int().min(1).max(600),
    binary: z.boolean(),
    batch: z.number().int().min(1).max(1024).default(1),
  }),
  z.object({
    mode: z.literal("ramp"),
    arrivals: z.enum(["constant", "poisson"]),
    fromRatePerS: rate,
    toRatePerS: rate,
    steps: z.number().int().min(2).max(20),
    durationS: z.number().int().min(2).max(600),
    binary: z.boolean(),
    batch: z.number().int().min(1).max(1024).default(1),
  }),
  z
    .object({
      mode: z.literal("search"),
      p99LimitMs: z.number().positive().max(600_000),
      startRatePerS: rate,
      maxRatePerS: rate,
      stepS: z.number().int().min(1).max(60),
      binary: z.boolean(),
      batch: z.number().int().min(1).max(1024).default(1),
    })
    .refine((s) => s.startRatePerS <= s.maxRatePerS, {
      message: "the start rate must not exceed the maximum rate",
      path: ["startRatePerS"],
    }),
]);
export type LoadTestSpec = z.infer<typeof loadTestSpecSchema>;

export const loadTestJobParamsSchema = z.object({
  loadTestId: z.string(),
  deploymentId: z.string(),
  /** The name clients use (/v2/models/{name}/infer) on the agent's own port. */
  modelName: z.string(),
  spec: loadTestSpecSchema,
  /** Sizes of the model's dynamic non-batch dimensions (e.g. {"sequence": 128}), for the generated inputs. */
  dimensions: z.record(z.string(), z.number().int().min(1)),
});
export type LoadTestJobParams = z.infer<typeof loadTestJobParamsSchema>;

/**
 * The pre-start duration probe of the profile form (issue #14): a few iterations of one cell (t = 1, b = 1) of a
 * model version, inside the deployment's core budget; the agent reports the cell as a profiling cell.
 */
export const profileProbeParamsSchema = z.object({
  modelName: z.string(),
  artifactSha256: z.string().regex(/^[0-9a-f]{64}$/),
  artifactBytes: z.number().int().positive(),
  artifactFormat: artifactFormatSchema,
  dimensions: z.record(z.string(), z.number().int().min(1)),
  budgetCpus: z.array(z.number().int().min(0)).min(1),
  threads: z.number().int().min(1),
  batch: z.number().int().min(1),
  warmup: z.number().int().min(0).max(10),
  iterations: z.number().int().min(1).max(20),
});
export type ProfileProbeParams = z.infer<typeof profileProbeParamsSchema>;

const shapeGroupSchema = z.object({
  count: z.number().int().min(1).max(4096),
  threads: z.number().int().min(1).max(4096),
  batch: z
    .number()
    .int()
    .min(1)
    .max(1 << 20),
});

/**
 * A plan trial: the candidate plans (the optimizer's top k, ⟨1,T,B⟩, the running configuration) run as they would be
 * served, all instances at once, pinned inside the budget, interleaved in rounds of about `roundMs` each.
 */
export const planTrialParamsSchema = z.object({
  modelName: z.string(),
  artifactSha256: z.string().regex(/^[0-9a-f]{64}$/),
  artifactBytes: z.number().int().positive(),
  artifactFormat: artifactFormatSchema,
  batch: z.number().int().min(1).max(4096),
  dimensions: z.record(z.string(), z.number().int().min(1)),
  /** Each tensor's batch axis where it is not the first: synthetic inputs and the dispatcher's split follow it. */
  batchAxes: batchAxesSchema.optional(),
  budgetCpus: z.array(z.number().int().min(0)).min(1),
  plans: z
    .array(z.object({ key: z.string().min(1).max(400), groups: z.array(shapeGroupSchema).min(1).max(64) }))
    .min(1)
    .max(8),
  rounds: z.number().int().min(1).max(20),
  roundMs: z.number().int().min(10).max(60_000),
  settleMs: z.number().int().min(0).max(5_000),
  minBatchesPerTurn: z.number().int().min(1).max(100),
  warmupIterations: z.number().int().min(0).max(10),
  /** The whole trial, start-up included; the agent stops the rounds there and is stopped a grace period after. */
  maxDurationMs: z.number().int().min(1_000).max(3_600_000),
});
export type PlanTrialParams = z.infer<typeof planTrialParamsSchema>;

/** POST /jobs/{id}/rounds: a plan trial's progress; 409 once the trial was cancelled (the agent stops). */
export const trialProgressSchema = z.object({ round: z.number().int().min(0), rounds: z.number().int().min(1) });

const trialTurnSchema = z.object({
  batches: z.number().int().min(1),
  /** The caller's view: infer() → result, ms. */
  meanMs: z.number().nonnegative(),
  /** The dispatcher's: dispatch → merged result (split, hand-off, compute, merge), ms. */
  dispatchMeanMs: z.number().nonnegative(),
  /** The slowest instance's session.run, ms. */
  instanceMeanMs: z.number().nonnegative(),
});

/** POST /jobs/{id}/trial: every plan's turns, one per round (none when it failed to start, with the reason). */
export const planTrialResultSchema = z.object({
  plans: z
    .array(
      z.object({
        key: z.string().max(400),
        error: z.string().max(2000).optional(),
        startMs: z.number().nonnegative().optional(),
        turns: z.array(trialTurnSchema).max(20),
      }),
    )
    .min(1)
    .max(8),
  stoppedEarly: z.boolean(),
  durationMs: z.number().nonnegative(),
});
export type PlanTrialResult = z.infer<typeof planTrialResultSchema>;

export const claimedJobSchema = z.object({
  job: z
    .discriminatedUnion("kind", [
      z.object({ id: z.string(), kind: z.literal(PROFILE_JOB_KIND), params: profileJobParamsSchema }),
      z.object({ id: z.string(), kind: z.literal(LOAD_TEST_JOB_KIND), params: loadTestJobParamsSchema }),
      z.object({ id: z.string(), kind: z.literal(PROFILE_PROBE_JOB_KIND), params: profileProbeParamsSchema }),
      z.object({ id: z.string(), kind: z.literal(PLAN_TRIAL_JOB_KIND), params: planTrialParamsSchema }),
    ])
    .nullable(),
});
export type ClaimedJob = NonNullable<z.infer<typeof claimedJobSchema>["job"]>;

const summarySchema = z.looseObject({
  count: z.number(),
  meanMs: z.number(),
  p50Ms: z.number(),
  p99Ms: z.number(),
  maxMs: z.number(),
});
const runSchema = z.looseObject({
  measured: z.looseObject({ intended: z.number(), sent: z.number(), ok: z.number(), dropped: z.number() }),
  windowMs: z.number(),
  offeredPerS: z.number(),
  okPerS: z.number(),
  latency: summarySchema.extend({ histogram: z.string() }),
  timeline: z.array(z.looseObject({ second: z.number(), intended: z.number(), ok: z.number(), errors: z.number() })),
});

/**
 * The load generator's JSON report (apps/loadgen/src/report.ts, format packrat-loadgen/1) as the agent uploads it:
 * the parts the dashboard reads are checked, everything else is kept as it came.
 */
export const loadgenReportSchema = z.looseObject({
  format: z.literal("packrat-loadgen/1"),
  startedAt: z.string(),
  finishedAt: z.string(),
  target: z.string(),
  model: z.string(),
  mode: z.enum(["open", "closed", "search"]),
  config: z.record(z.string().max(256), jsonValueSchema),
  open: runSchema.optional(),
  search: z
    .looseObject({
      maxRate: z.number().optional(),
      firstFailingRate: z.number().optional(),
      steps: z.array(
        z.looseObject({
          rate: z.number(),
          p99Ms: z.number(),
          intended: z.number(),
          ok: z.number(),
          passed: z.boolean(),
          reason: z.string(),
        }),
      ),
    })
    .optional(),
});
export type LoadgenReportJson = z.infer<typeof loadgenReportSchema>;

/** POST /jobs/{id}/result: a load test's report, with the generation the agent served when the run ended. */
export const loadTestResultSchema = z.object({
  report: loadgenReportSchema,
  generationAtEnd: z.number().int().min(0).optional(),
});

export const profileCellReportSchema = z.object({
  threads: z.number().int().min(1),
  batch: z.number().int().min(1),
  meanMs: z.number().nonnegative(),
  p50Ms: z.number().nonnegative(),
  p90Ms: z.number().nonnegative(),
  p99Ms: z.number().nonnegative(),
  stddevMs: z.number().nonnegative(),
  ciHalfWidthMs: z.number().nonnegative(),
  iterations: z.number().int().min(1),
  stopReason: z.string().max(40),
  peakRssBytes: z.number().int().nonnegative().nullable(),
  histogram: z.string().max(65_536),
  /** Rounds the estimate (meanMs, ciHalfWidthMs) was taken over; absent from older agents. */
  rounds: z.number().int().min(0).optional(),
  /** Share of the profiled CPUs' time other processes took while the cell was measured, in percent. */
  interferencePct: z.number().min(0).max(100_000).optional(),
  /** Times it was measured again from scratch because of that interference. */
  remeasured: z.number().int().min(0).max(100).optional(),
  /** Still above the interference threshold after the re-measures. */
  flagged: z.boolean().optional(),
});
export type ProfileCellReport = z.infer<typeof profileCellReportSchema>;

/** Cells as they finish; with none, a round's progress (cells are measured in interleaved rounds and may all finish
 *  late): the answer is 409 once the job was cancelled, so the agent learns of it between rounds. */
export const postCellsSchema = z
  .object({
    cells: z.array(profileCellReportSchema).max(1024),
    progress: z.object({ round: z.number().int().min(1), measuring: z.number().int().min(0) }).optional(),
  })
  .refine((b) => b.cells.length > 0 || b.progress !== undefined, {
    message: "send at least one cell, or the progress of a round",
    path: ["cells"],
  });
export const finishJobSchema = z.object({
  outcome: z.enum(["done", "failed"]),
  error: z.string().max(2000).optional(),
});
