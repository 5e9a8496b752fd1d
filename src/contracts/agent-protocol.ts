// The agent protocol: REST under /api/agent/v1, bearer agent tokens. Agents pull; the control plane never calls an
// agent. Both sides validate with these schemas; a change here is a protocol change (bump the version).
import { z } from "zod";
import { DECISION_OUTCOMES, type EstimatorDecision, type EstimatorState } from "../core/estimator/types";
import { servingPlanSchema } from "./serving-plan";
import { artifactFormatSchema } from "./artifact-format";
import { cpuId, hostTopologySchema } from "./host-topology";

export { hostTopologySchema };

export const AGENT_PROTOCOL_VERSION = 1;
export const AGENT_API_PREFIX = "/api/agent/v1";

// Characters an address needs (host, IPv6 brackets, port, path, %-escapes) and none a shell gives meaning to: the
// address is shown to users in a command they paste.
const SHELL_INERT_URL = /^[A-Za-z0-9._~:/%[\]-]+$/;
const AGENT_URL_RULE =
  "must be an http or https URL without credentials or shell characters (letters, digits and . _ ~ : / % [ ] - only)";

/** Where clients reach an agent: http(s), no user:password, nothing a shell would expand. */
export const agentUrlSchema = z
  .string()
  .max(2048)
  .refine(
    (value) => {
      if (!SHELL_INERT_URL.test(value)) return false;
      try {
        const url = new URL(value);
        return (
          (url.protocol === "http:" || url.protocol === "https:") &&
          url.username === "" &&
          url.password === "" &&
          url.hostname !== ""
        );
      } catch {
        return false;
      }
    },
    { message: AGENT_URL_RULE },
  );

export const registerRequestSchema = z.object({
  protocolVersion: z.number().int(),
  agentVersion: z.string().min(1).max(64),
  hostName: z.string().min(1).max(255),
  /** New at every agent start: a changed boot id means the agent restarted (its running jobs are requeued). */
  bootId: z.string().uuid(),
  topology: hostTopologySchema,
  /** The CPUs this agent may use (affinity mask ∩ cgroup cpuset). */
  allowedCpus: z.array(cpuId).min(1),
  cpuModel: z.string().max(255),
  memoryBytes: z.number().int().positive(),
  ortVersion: z.string().max(64),
  /** Where clients reach this agent's inference server, as the agent sees it. */
  inferenceUrl: agentUrlSchema.optional(),
});
export type RegisterRequest = z.infer<typeof registerRequestSchema>;

export const registerResponseSchema = z.object({
  agentId: z.string(),
  /** Only when the agent registered with an enrollment token: its own token, shown this once. */
  agentToken: z.string().optional(),
  heartbeatIntervalMs: z.number().int().positive(),
  /** How often to send metrics (absent from an older control plane: the agent's own default). */
  metricsIntervalMs: z.number().int().positive().optional(),
  longPollHoldMs: z.number().int().positive(),
});
export type RegisterResponse = z.infer<typeof registerResponseSchema>;

export const desiredDeploymentSchema = z.object({
  deploymentId: z.string(),
  modelName: z.string(),
  /** The model version's label (e.g. "3"), reported in inference responses as model_version. */
  version: z.string(),
  artifactSha256: z.string().regex(/^[0-9a-f]{64}$/),
  artifactBytes: z.number().int().positive(),
  artifactFormat: artifactFormatSchema,
  /** Per-deployment generation: only increases. */
  generation: z.number().int().min(1),
  /** With per-instance cpulists computed by the control plane's allocator. */
  plan: servingPlanSchema,
  /** The model's SLO, so the agent can count requests within it. */
  slo: z.object({ deadlineMs: z.number().positive(), quantile: z.number().gt(0).lt(1) }).optional(),
});
export type DesiredDeployment = z.infer<typeof desiredDeploymentSchema>;

/** GET /desired?after=<revision>: the revision the agent holds (absent: 0). */
export const desiredQuerySchema = z.object({
  after: z
    .string()
    .optional()
    .transform((raw, ctx) => {
      const after = Number(raw ?? "0");
      if (!Number.isInteger(after) || after < 0) {
        ctx.addIssue({ code: "custom", message: `must be a non-negative integer, got "${raw}"` });
        return z.NEVER;
      }
      return after;
    }),
});
export type DesiredQuery = z.infer<typeof desiredQuerySchema>;

/** GET /artifacts/{sha256}: a model file's content hash in the path. */
export const artifactPathParamsSchema = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/, "must be 64 lowercase hex digits"),
});

export const desiredStateSchema = z.object({
  /** Per-agent revision: bumps whenever any deployment's desired state changes. */
  revision: z.number().int().min(0),
  deployments: z.array(desiredDeploymentSchema),
});
export type DesiredState = z.infer<typeof desiredStateSchema>;

/**
 * Bounds of one heartbeat. Its report is stored (a deployment's lastReport, reconfiguration outcomes, estimator
 * proposals), so each part has a ceiling here, not only the request body as a whole: a report past one is refused
 * (400 naming the field), never stored. Far above what a host produces: one deployment's instances share the host's
 * CPUs, so together they list at most every CPU once. The estimator's state, its decisions and the last
 * reconfiguration have typed schemas of their own (below), with their own bounds.
 */
export const HEARTBEAT_LIMITS = {
  deployments: 256,
  instancesPerDeployment: 256,
  /** CPUs listed by all instances of one deployment together. */
  cpusPerDeployment: 4096,
  idLength: 128,
  stateLength: 32,
} as const;

const histogram = z.string().max(65_536); // base64 of a compressed HDR histogram (src/core/stats/histogram.ts)

/** How many estimator decisions one report may carry (the heartbeat stays bounded: ~120 × 0.4 kB). */
export const ESTIMATOR_TIMELINE_MAX = 120;
const nullableNumber = z.number().nullable();
/** One decision of the batch-size estimator (src/core/estimator/types.ts EstimatorDecision). */
export const estimatorDecisionSchema = z.object({
  tMs: z.number(),
  samples: z.number().int().min(0),
  qHat: nullableNumber,
  qTilde: nullableNumber,
  estimate: nullableNumber,
  stable: nullableNumber,
  current: z.number().int().min(1),
  triggers: z.object({
    timeoutShare: z.number(),
    batchTimeouts: z.boolean(),
    meanQueueDelayMs: nullableNumber,
    queueDelay: z.boolean(),
    holds: z.boolean(),
  }),
  dwellRemainingMs: z.number().min(0),
  proposed: z.number().int().positive().nullable(),
  outcome: z.enum(DECISION_OUTCOMES),
});
export type EstimatorDecisionReport = z.infer<typeof estimatorDecisionSchema>;
export const estimatorTimelineSchema = z.array(estimatorDecisionSchema).max(ESTIMATOR_TIMELINE_MAX);
const estimatorTimeline = estimatorTimelineSchema;

const intervalStatsSchema = z.object({
  batches: z.number().int().min(0),
  timedOut: z.number().int().min(0),
  queueDelaySumMs: z.number().min(0),
});
/** Rings longer than this are refused (the estimator's own default is 10). */
const ESTIMATOR_RING_MAX = 1000;
/** The batch-size estimator's whole state as the agent reports it (src/core/estimator/types.ts EstimatorState). */
export const estimatorStateSchema = z.object({
  version: z.literal(1),
  params: z.object({
    alpha: z.number().gt(0).max(1),
    ringSize: z.number().int().min(1).max(ESTIMATOR_RING_MAX),
    reconfigurationTimeoutMs: z.number().positive(),
    sampleIntervalMs: z.number().positive(),
    minDwellMs: z.number().min(0),
    requireTrigger: z.boolean(),
    timeoutIntervalShare: z.number().min(0).max(1),
    queueDelayFactor: z.number().min(0),
    hysteresis: z.number().min(0),
    maxBatch: z.number().int().positive().nullable(),
  }),
  startedMs: nullableNumber,
  lastSampleMs: nullableNumber,
  lastDecisionMs: nullableNumber,
  lastProposalMs: nullableNumber,
  pending: intervalStatsSchema.extend({ samples: z.number().int().min(0), depthSum: z.number().min(0) }),
  qTilde: nullableNumber,
  estimates: z.array(z.number()).max(ESTIMATOR_RING_MAX),
  intervals: z.array(intervalStatsSchema).max(ESTIMATOR_RING_MAX),
  stable: nullableNumber,
});

/** What the agent's last reconfiguration did and how long each phase took (Packrat §3.7). */
export const reconfigurationReportSchema = z.object({
  generation: z.number().int().min(0),
  kind: z.enum(["scale", "active-passive", "batch-only"]),
  outcome: z.enum(["applied", "failed"]),
  error: z.string().max(2000).optional(),
  started: z.number().int().min(0),
  stopped: z.number().int().min(0),
  kept: z.number().int().min(0),
  /** CPUs the new set shared with the old one while both ran (the overlap staging on a small host). */
  overlapCpus: z.array(z.number().int().min(0)).max(4096),
  phasesMs: z.object({
    start: z.number().min(0),
    warm: z.number().min(0),
    switch: z.number().min(0),
    drain: z.number().min(0),
    stop: z.number().min(0),
    total: z.number().min(0),
  }),
  /** Mean compute latency of the first full batches after the switch (filled in as they complete). */
  servedBatchLatencyMs: z.number().min(0).optional(),
  servedBatches: z.number().int().min(0),
});
export type ReconfigurationReport = z.infer<typeof reconfigurationReportSchema>;

// The core's plain types and these wire schemas describe the same data: a change to either fails to compile here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameState: Same<z.infer<typeof estimatorStateSchema>, EstimatorState> = true;
const sameDecision: Same<EstimatorDecisionReport, EstimatorDecision> = true;
void sameState;
void sameDecision;

export const instanceReportSchema = z.object({
  id: z.number().int(),
  threads: z.number().int(),
  batch: z.number().int(),
  state: z.string().max(HEARTBEAT_LIMITS.stateLength),
  cpus: z.array(cpuId).max(HEARTBEAT_LIMITS.cpusPerDeployment),
  affinityOk: z.boolean(),
});

export const deploymentReportSchema = z.object({
  deploymentId: z.string().min(1).max(HEARTBEAT_LIMITS.idLength),
  observedGeneration: z.number().int().min(0),
  state: z.enum(["applying", "serving", "failed"]),
  failureReason: z.string().max(2000).optional(),
  /** Since the previous heartbeat. */
  intervalMs: z.number().min(0),
  requests: z.object({
    completed: z.number().int().min(0),
    rejected: z.number().int().min(0),
    withinSlo: z.number().int().min(0),
  }),
  rows: z.object({ completed: z.number().int().min(0), rejected: z.number().int().min(0) }),
  /** Per-stage latency histograms (µs) since the previous heartbeat. */
  histograms: z
    .object({
      deserialize: histogram,
      queue: histogram,
      formation: histogram,
      busy: histogram,
      compute: histogram,
      system: histogram,
      serialize: histogram,
      total: histogram,
    })
    .partial(),
  /** Time the instance set spent executing batches in the interval (one batch at a time: busyMs / intervalMs = ρ). */
  busyMs: z.number().min(0).optional(),
  queueDepthRows: z.number().int().min(0),
  instances: z
    .array(instanceReportSchema)
    .max(HEARTBEAT_LIMITS.instancesPerDeployment)
    .refine((instances) => instances.reduce((n, i) => n + i.cpus.length, 0) <= HEARTBEAT_LIMITS.cpusPerDeployment, {
      message: `instances list more than ${HEARTBEAT_LIMITS.cpusPerDeployment} CPUs together`,
    }),
  affinityOk: z.boolean(),
  estimator: estimatorStateSchema.optional(),
  /** The estimator's decisions since the previous heartbeat (the newest ESTIMATOR_TIMELINE_MAX). */
  estimatorTimeline: estimatorTimeline.optional(),
  /** Set when a decision proposed a new B: the decision and the timeline up to it (the proposal's evidence). */
  estimatorProposal: z
    .object({
      batchSize: z.number().int().positive(),
      decision: estimatorDecisionSchema,
      timeline: estimatorTimeline.optional(),
    })
    .optional(),
  lastReconfiguration: reconfigurationReportSchema.optional(),
});
export type DeploymentReport = z.infer<typeof deploymentReportSchema>;

/** What a deployment's events carry (POST /events): its generation's outcome and what drives proposals. */
export const deploymentEventSchema = deploymentReportSchema.pick({
  deploymentId: true,
  observedGeneration: true,
  state: true,
  failureReason: true,
  estimatorProposal: true,
  lastReconfiguration: true,
});
export type DeploymentEvent = z.infer<typeof deploymentEventSchema>;

/** One deployment's metrics over one metrics interval (POST /metrics): counters summed, histograms merged on the agent. */
export const deploymentMetricsSchema = deploymentReportSchema.pick({
  deploymentId: true,
  intervalMs: true,
  requests: true,
  rows: true,
  histograms: true,
  busyMs: true,
  queueDepthRows: true,
  instances: true,
  affinityOk: true,
  estimator: true,
  estimatorTimeline: true,
});
export type DeploymentMetrics = z.infer<typeof deploymentMetricsSchema>;

const hostLoadSchema = z.object({
  cpuBusyFraction: z.number().min(0).max(1),
  memoryUsedBytes: z.number().int().min(0),
});

/**
 * POST /heartbeat: the agent's lease renewal and the desired-state revision it has applied (its observed generation),
 * nothing else. An older agent's heartbeat also carries `host`, `servingProcessRestarts` and `deployments` (each a
 * whole report): still accepted, and processed as an events and a metrics message together.
 */
export const heartbeatRequestSchema = z.object({
  bootId: z.string().uuid(),
  /** The desired-state revision the agent has applied (or is applying). */
  revision: z.number().int().min(0),
  host: hostLoadSchema.optional(),
  servingProcessRestarts: z.number().int().min(0).optional(),
  deployments: z.array(deploymentReportSchema).max(HEARTBEAT_LIMITS.deployments).optional(),
});
export type HeartbeatRequest = z.infer<typeof heartbeatRequestSchema>;

export const heartbeatResponseSchema = z.object({ ok: z.literal(true), revision: z.number().int().min(0) });

/** POST /events: sent when something happens to a deployment (a generation served or failed, a reconfiguration
 *  report, an estimator proposal), not on a timer. */
export const eventsRequestSchema = z.object({
  bootId: z.string().uuid(),
  deployments: z.array(deploymentEventSchema).min(1).max(HEARTBEAT_LIMITS.deployments),
});
export type EventsRequest = z.infer<typeof eventsRequestSchema>;

/** POST /metrics: every METRICS_INTERVAL_MS, the interval's aggregate per deployment and the host's load. */
export const metricsRequestSchema = z.object({
  bootId: z.string().uuid(),
  host: hostLoadSchema,
  servingProcessRestarts: z.number().int().min(0),
  deployments: z.array(deploymentMetricsSchema).max(HEARTBEAT_LIMITS.deployments),
});
export type MetricsRequest = z.infer<typeof metricsRequestSchema>;

export const acceptedResponseSchema = z.object({ ok: z.literal(true) });

/**
 * Errors on every agent route: 4xx/5xx with this body. `code` is the domain's word and what a caller acts on, never
 * the message (written for people): a service's code (NOT_FOUND, CONFLICT, INVALID_INPUT, …), src/core's own for a
 * refused input (too_large, cannot-fit, …), BAD_REQUEST for a query or body its contract refused, UNAUTHORIZED,
 * UNAVAILABLE (retry), or one of AGENT_ERROR_CODES. `parameter` names the input at fault; `allowed` lists the values
 * accepted where the value was outside a closed set.
 */
export const agentErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    parameter: z.string().optional(),
    allowed: z.array(z.string()).optional(),
  }),
});
export type AgentErrorBody = z.infer<typeof agentErrorSchema>["error"];

/** Codes of the agent API's own refusals. unknown_job_kind: GET /jobs/next named a kind this control plane does not
 *  run (`allowed` lists those it does; an agent newer than its control plane narrows its kinds to them). */
export const AGENT_ERROR_CODES = { unknownJobKind: "unknown_job_kind" } as const;
