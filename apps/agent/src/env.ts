// The agent's one validated view of its environment (its own runtime, so its own module).
import { readFileSync } from "node:fs";
import { z } from "zod";
import { agentUrlSchema } from "@packrat/contracts/agent-protocol";
import { DEFAULT_ESTIMATOR_PARAMS } from "@packrat/core/estimator/params";
import { secretWeakness, weakSecretMessage } from "@packrat/core/security/weak-secret";

/** A token that is not a placeholder (prat_enroll_REPLACE-ME…), a known default or a repetitive string. */
const token = () =>
  z
    .string()
    .min(16, "must be at least 16 characters")
    .superRefine((value, ctx) => {
      const weakness = secretWeakness(value, 8);
      if (weakness) ctx.addIssue({ code: "custom", message: weakSecretMessage(weakness) });
    });

const bool = (d: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(d ? "true" : "false")
    .transform((v) => v === "true" || v === "1");

export const agentEnvSchema = z.object({
  AGENT_HOST: z.string().min(1).default("127.0.0.1"),
  AGENT_PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  /** When set, the Open Inference Protocol over gRPC (KServe v2 GRPCInferenceService) listens here too, on AGENT_HOST
   *  (Triton's convention is 8001). Unset: no gRPC port is opened. */
  AGENT_GRPC_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Rows queued per model beyond which requests are rejected with 503 + Retry-After. */
  AGENT_MAX_QUEUE: z.coerce.number().int().min(1).default(4096),
  AGENT_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(64 * 1024 * 1024),
  /** Request-body bytes one serving process holds at once (JSON counted 4x: parsing it costs that); beyond: 503 + Retry-After. */
  AGENT_MAX_BODY_BYTES_IN_FLIGHT: z.coerce
    .number()
    .int()
    .min(1024)
    .default(256 * 1024 * 1024),
  /** When set, inference requires `Authorization: Bearer <token>`; so do /metrics and /agent/status unless AGENT_METRICS_TOKEN is set. */
  AGENT_INFER_TOKEN: token().optional(),
  /** When set, /metrics and /agent/status require `Authorization: Bearer <this token>` (a scraper need not hold the infer token). */
  AGENT_METRICS_TOKEN: token().optional(),
  AGENT_WARMUP_ITERATIONS: z.coerce.number().int().min(0).max(1000).optional(),
  /** How long SIGTERM waits for queued requests to finish. */
  AGENT_DRAIN_TIMEOUT_MS: z.coerce.number().int().min(0).default(30_000),
  /** Connections that wait (paused, nothing read) while the serving process (re)starts; beyond this many: 503. */
  AGENT_HELD_CONNECTIONS_MAX: z.coerce.number().int().min(0).default(1024),
  /** How long such a connection waits before it is answered 503 + Retry-After instead. */
  AGENT_HELD_CONNECTIONS_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  /** Backoff of instance re-creation after a crash (doubling up to 10 s). */
  AGENT_INSTANCE_RESTART_BACKOFF_MS: z.coerce.number().int().min(1).default(200),
  /** ORT pool threads spin after each run by default (fast, but a core stays busy ~40 ms). */
  AGENT_ORT_ALLOW_SPINNING: bool(true),
  /** Test and chaos hook: honour `parameters.packrat_fault` on infer requests. Never enable in production. */
  AGENT_FAULT_INJECTION: bool(false),
  /** Test hook (with AGENT_FAULT_INJECTION): the first serving process to receive a connection while this file does
   *  not exist creates it and exits at once, before taking the connection (a death at the instant of a hand-over). */
  AGENT_FAULT_EXIT_ON_CONNECTION_MARK: z.string().min(1).optional(),
  // Batch-size estimator (Packrat §3.8): the authors' parameters by default.
  ESTIMATOR_SAMPLE_INTERVAL_MS: z.coerce.number().positive().default(DEFAULT_ESTIMATOR_PARAMS.sampleIntervalMs),
  ESTIMATOR_DECISION_INTERVAL_MS: z.coerce
    .number()
    .positive()
    .default(DEFAULT_ESTIMATOR_PARAMS.reconfigurationTimeoutMs),
  ESTIMATOR_MIN_DWELL_MS: z.coerce.number().min(0).default(DEFAULT_ESTIMATOR_PARAMS.minDwellMs),
  ESTIMATOR_ALPHA: z.coerce.number().gt(0).max(1).default(DEFAULT_ESTIMATOR_PARAMS.alpha),
  ESTIMATOR_RING_SIZE: z.coerce.number().int().min(1).default(DEFAULT_ESTIMATOR_PARAMS.ringSize),
  /** Attached mode: the control plane's URL and this agent's token (or an enrollment token). */
  PACKRAT_CONTROL_PLANE_URL: z.string().url().optional(),
  AGENT_TOKEN: token().optional(),
  /** Instead of AGENT_TOKEN: a file holding the token (a mounted secret), so it is in no process's environment. */
  AGENT_TOKEN_FILE: z.string().min(1).optional(),
  /** Delete AGENT_TOKEN_FILE once the enrollment token in it has been exchanged for the agent's own token. */
  AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL: bool(false),
  /** Where clients reach this agent, as shown on the dashboard (default http://<AGENT_HOST>:<AGENT_PORT>). */
  // Checked as the control plane checks it, so a bad address fails at start, not at registration.
  AGENT_PUBLIC_URL: agentUrlSchema.optional(),
  /** The host name the agent registers as (default: the OS's). An agent token binds to it, so a Kubernetes DaemonSet
   *  sets the node's name: a replaced pod has a new pod name but the same node, and keeps its token. */
  AGENT_HOST_NAME: z.string().min(1).max(255).optional(),
  AGENT_CACHE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(10 * 1024 ** 3),
  /** Attached mode: how often the agent sends its metrics (counters summed and histograms merged over the interval).
   *  Unset: as the control plane says at registration (15 s unless it says otherwise). */
  METRICS_INTERVAL_MS: z.coerce.number().int().min(100).optional(),
  RECONNECT_BACKOFF_MIN_MS: z.coerce.number().int().positive().default(500),
  RECONNECT_BACKOFF_MAX_MS: z.coerce.number().int().positive().default(2_000),
  AGENT_STATE_DIR: z.string().min(1).default(".data/agent"),
  /** When set, one span per inference request (HTTP and gRPC) is exported to this OTLP/HTTP collector
   *  ({endpoint}/v1/traces, JSON encoding), in the caller's trace when a traceparent came in. Unset: no export. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .url()
    .refine((u) => /^https?:\/\//.test(u), "must be an http(s) URL")
    .optional(),
  /** The exported spans' service.name. */
  OTEL_SERVICE_NAME: z.string().min(1).default("packrat-agent"),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type AgentEnv = z.infer<typeof agentEnvSchema>;

export class AgentEnvError extends Error {}

/** A copy of this process's environment with `extra` laid over it: what a child process inherits, or the source
 *  handed to a parser that validates it. The one way to the raw environment outside this module. */
export function processEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

export function loadAgentEnv(source: Record<string, string | undefined> = process.env): AgentEnv {
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = agentEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    throw new AgentEnvError(`invalid environment variable ${name}: ${issue.message}`);
  }
  if (parsed.data.AGENT_TOKEN && parsed.data.AGENT_TOKEN_FILE)
    throw new AgentEnvError("set AGENT_TOKEN or AGENT_TOKEN_FILE, not both");
  return parsed.data;
}

/**
 * The token in AGENT_TOKEN_FILE, checked as AGENT_TOKEN is (never quoted in the error), or undefined when the file
 * is gone (removed after enrolling: the agent then uses the token it keeps in its state directory).
 */
export function readTokenFile(path: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw new AgentEnvError(
      `AGENT_TOKEN_FILE ${path} cannot be read: ${(error as NodeJS.ErrnoException).code ?? "error"}`,
    );
  }
  const parsed = token().safeParse(text.trim());
  if (!parsed.success) throw new AgentEnvError(`AGENT_TOKEN_FILE ${path}: ${parsed.error.issues[0]!.message}`);
  return parsed.data;
}
