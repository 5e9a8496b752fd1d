// The control plane's one validated view of its environment. Nothing else in src/server or src/app reads
// process.env. Every timing constant lives here with its default, so tests shorten them instead of waiting.
import { z } from "zod";
import { secretWeakness, weakSecretMessage } from "@/core/security/weak-secret";
import { DEFAULT_HEARTBEAT_INTERVAL_MS } from "@/contracts/agent-timing";

const postgresUrl = z.string().refine((value) => {
  try {
    return ["postgres:", "postgresql:"].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}, "must be a postgresql:// URL (e.g. postgresql://user:pass@host:5432/db)");

/** A secret that is not a placeholder (REPLACE-ME…), a known default or a repetitive string. */
const secret = (schema: z.ZodString, minDistinct = 6) =>
  schema.superRefine((value, ctx) => {
    const weakness = secretWeakness(value, minDistinct);
    if (weakness) ctx.addIssue({ code: "custom", message: weakSecretMessage(weakness) });
  });

/** The password inside a postgresql:// URL is a secret too (the example overlay ships one as REPLACE-ME). */
const urlPasswordProblem = (value: string): string | null => {
  try {
    const password = decodeURIComponent(new URL(value).password);
    const weakness = password ? secretWeakness(password, 1) : null;
    return weakness === "placeholder"
      ? "its password is still a placeholder (e.g. REPLACE-ME): set the real one"
      : null;
  } catch {
    return null;
  }
};

/** Loopback: only this machine can reach the dashboard, so the demo users (known passwords) harm no one. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return h === "localhost" || h === "::1" || /^127\.\d+\.\d+\.\d+$/.test(h);
}

const ms = (defaultMs: number) => z.coerce.number().int().positive().default(defaultMs);
const bool = (defaultValue: boolean) =>
  z
    .enum(["true", "false", "1", "0"])
    .default(defaultValue ? "true" : "false")
    .transform((v) => v === "true" || v === "1");

export const controlPlaneEnvSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("production"),
  /** PostgreSQL to use. Unset: `npm start` runs an embedded PostgreSQL under PACKRAT_DATA_DIR/pg. */
  DATABASE_URL: postgresUrl
    .superRefine((value, ctx) => {
      const problem = urlPasswordProblem(value);
      if (problem) ctx.addIssue({ code: "custom", message: problem });
    })
    .optional(),
  /** Connections in this process's pool. */
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(500).default(10),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  /** Where the dashboard listens. Default loopback (npm start also forwards [::1]); the container image sets 0.0.0.0. */
  HOST: z.string().min(1).default("127.0.0.1"),
  /** The URL users reach the dashboard at; mutations must carry it as Origin. */
  PACKRAT_PUBLIC_URL: z.string().url().optional(),
  PACKRAT_DATA_DIR: z.string().min(1).default(".data"),
  /** Port of the embedded PostgreSQL (only when DATABASE_URL is unset). */
  PACKRAT_EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  /** Start a local agent with a demo model beside the dashboard (npm start). */
  PACKRAT_LOCAL_AGENT: bool(true),
  /** Where npm start's local agent serves inference (OIP v2). */
  PACKRAT_LOCAL_AGENT_PORT: z.coerce.number().int().min(1).max(65535).default(8000),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Largest body a dashboard call (/api/trpc, /api/auth) may send, in bytes; past it 413, read no further. */
  DASHBOARD_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(1024 ** 2),
  /** Largest JSON body an agent API call (register, heartbeat, job results) may send, in bytes; past it 413. */
  AGENT_API_MAX_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(16 * 1024 ** 2),

  // Users and sign-in.
  /**
   * With an empty database, seed the four demo users (admin, sre, ml, manager @example.com, one known password).
   * Unset: only when the dashboard listens on loopback (HOST); anywhere else only when set to true explicitly.
   */
  PACKRAT_DEMO_USERS: z
    .enum(["true", "false", "1", "0"])
    .transform((v) => v === "true" || v === "1")
    .optional(),
  /** The first admin, created once at start when PACKRAT_DEMO_USERS=false and no admin exists. */
  PACKRAT_ADMIN_EMAIL: z.email("must be an email address").optional(),
  PACKRAT_ADMIN_PASSWORD: secret(z.string().min(12, "must be at least 12 characters")).optional(),
  /** Signs session cookies. Unset: generated once into PACKRAT_DATA_DIR/auth-secret (mode 0600). */
  BETTER_AUTH_SECRET: secret(
    z.string().min(32, "must be at least 32 characters (e.g. openssl rand -base64 32)"),
    10,
  ).optional(),
  /** Failed sign-ins one client may make for one account within SIGN_IN_FAILURE_WINDOW_MS; then 429 for that client only. */
  SIGN_IN_MAX_FAILURES_PER_CLIENT: z.coerce.number().int().min(1).default(5),
  /** Failed sign-ins one client may make across all accounts within the window; then 429. */
  SIGN_IN_MAX_FAILURES_PER_IP: z.coerce.number().int().min(1).default(20),
  /** Failures of one account (from any client) in the window after which its sign-ins are slowed, never locked. */
  SIGN_IN_ACCOUNT_SLOWDOWN_AFTER: z.coerce.number().int().min(1).default(10),
  /** Once slowed: one more attempt for the account per this interval, from any client (the longest its owner waits). */
  SIGN_IN_ACCOUNT_SLOWDOWN_MS: ms(30_000),
  SIGN_IN_FAILURE_WINDOW_MS: ms(15 * 60_000),
  /**
   * Proxies in front of the dashboard that append to X-Forwarded-For (0: none). 0: the client is the TCP peer and
   * forwarded headers are ignored (a client could forge them); N: the client is the Nth entry from the right.
   * Set it only when every request passes through those proxies.
   */
  PACKRAT_TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),

  // Timing (milliseconds). The heartbeat and long-poll settings reach agents in their registration response.
  HEARTBEAT_INTERVAL_MS: ms(DEFAULT_HEARTBEAT_INTERVAL_MS),
  /** How often agents send their aggregated metrics (unset: three heartbeat intervals, 15 s by default). The live
   *  views (Planning, Overview, alerts) are this fresh. An agent's own METRICS_INTERVAL_MS overrides it. */
  METRICS_INTERVAL_MS: z.coerce.number().int().min(100).optional(),
  AGENT_OFFLINE_AFTER_MS: ms(15_000),
  AGENT_LOST_TIMEOUT_MS: ms(60_000),
  LONG_POLL_HOLD_MS: ms(25_000),
  METRICS_WINDOW_MS: ms(60_000),
  /** Per-minute metric rollups are kept at least this many days: retention drops whole UTC days (a day's partition
   *  goes once all of it is older than now minus this), so up to a day more is kept (raw heartbeats: one hour). */
  METRICS_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  JOB_LEASE_TIMEOUT_MS: ms(60_000),

  // Alerts (issue #17).
  /** How often the control plane evaluates the alert rules (one replica at a time) and sends due webhooks. */
  ALERT_EVALUATION_INTERVAL_MS: ms(5_000),
  /** How far back the SLO, utilization and rejection rules look (per-minute rollups). */
  ALERT_WINDOW_MS: ms(300_000),
  /** Rejected requests per second over the window above which a deployment alerts. */
  ALERT_REJECTIONS_PER_S: z.coerce.number().positive().default(1),
  /** Completed requests the window needs before the SLO and utilization rules judge it. */
  ALERT_MIN_REQUESTS: z.coerce.number().int().min(1).default(100),
  /** Serving-process restarts within the window that make a crash loop. */
  ALERT_CRASH_LOOP_RESTARTS: z.coerce.number().int().min(1).default(3),
  /** One webhook POST's time limit. */
  ALERT_WEBHOOK_TIMEOUT_MS: ms(5_000),
  /** Tries per alert event before its delivery is marked failed. */
  ALERT_WEBHOOK_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(100).default(6),
  /** Retry delay after the first failed try; doubles per try up to ALERT_WEBHOOK_BACKOFF_MAX_MS. */
  ALERT_WEBHOOK_BACKOFF_MS: ms(1_000),
  ALERT_WEBHOOK_BACKOFF_MAX_MS: ms(300_000),

  // Outbound requests to user-given URLs (alert webhooks, model import by URL): src/server/net/outbound-guard.ts.
  /**
   * Comma-separated addresses, networks or host names the control plane may reach although they are loopback,
   * private or link-local (e.g. "10.20.0.0/16,alerts.internal"). Empty: only public addresses.
   */
  PACKRAT_OUTBOUND_ALLOW: z
    .string()
    .default("")
    .transform((v) =>
      v
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    ),

  // Model registry.
  /** Where artifact bytes live: `file` (PACKRAT_DATA_DIR/artifacts) or `postgres` (chunked rows; replicas share them). */
  ARTIFACT_STORE: z.enum(["file", "postgres"]).default("file"),
  /** Largest model file an upload may send, in bytes (the store refuses past it and keeps nothing). */
  MODEL_UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(2 * 1024 ** 3),
  /**
   * Largest .tar or .zip of a model with its external data files (the way past protobuf's 2 GiB), in bytes: both
   * what the upload may send and what its files may unpack to (a larger one is refused and nothing is kept).
   */
  MODEL_ARCHIVE_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(16 * 1024 ** 3),
  /**
   * Uploads (and imports by URL) one replica handles at once: each holds a validation and an analysis child of up
   * to MODEL_VALIDATE_MAX_RSS. One more is refused with 429 and Retry-After before a byte of it is read.
   */
  MODEL_UPLOAD_MAX_CONCURRENT: z.coerce.number().int().min(1).default(2),
  /** Resident memory a model's validation child may reach before it is killed, in bytes. */
  MODEL_VALIDATE_MAX_RSS: z.coerce
    .number()
    .int()
    .positive()
    .default(4 * 1024 ** 3),
  /** Wall-clock limit of a model's validation (and of its analysis run), in ms. */
  MODEL_VALIDATE_TIMEOUT_MS: ms(60_000),
  /** Import by URL: the whole download's time limit, in ms (the size limit is MODEL_UPLOAD_MAX_BYTES). */
  MODEL_IMPORT_TIMEOUT_MS: ms(600_000),
  /** Import by URL from plain http:// (no TLS: anyone on the path can swap the model). Off: https:// only. */
  MODEL_IMPORT_ALLOW_HTTP: bool(false),
});

export type ControlPlaneEnv = Omit<z.infer<typeof controlPlaneEnvSchema>, "PACKRAT_DEMO_USERS"> & {
  PACKRAT_PUBLIC_URL: string;
  PACKRAT_DEMO_USERS: boolean;
};

export class EnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EnvError";
  }
}

/** Parses the environment; a wrong or missing variable becomes one line that names it. */
export function loadControlPlaneEnv(source: Record<string, string | undefined> = process.env): ControlPlaneEnv {
  // Empty strings mean "unset" (docker-compose writes FOO= for an absent variable).
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const parsed = controlPlaneEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? "environment");
    const shown = name in cleaned && !/URL|SECRET|TOKEN|PASSWORD/.test(name) ? ` (got "${cleaned[name]}")` : "";
    throw new EnvError(`invalid environment variable ${name}${shown}: ${issue.message}`);
  }
  const env = parsed.data;
  return {
    ...env,
    PACKRAT_PUBLIC_URL: env.PACKRAT_PUBLIC_URL ?? `http://localhost:${env.PORT}`,
    // Not NODE_ENV: the web process runs with production even for a laptop's npm start.
    PACKRAT_DEMO_USERS: env.PACKRAT_DEMO_USERS ?? isLoopbackHost(env.HOST),
  };
}

let cached: ControlPlaneEnv | undefined;
export function env(): ControlPlaneEnv {
  cached ??= loadControlPlaneEnv();
  return cached;
}

/** The launcher (scripts/start.ts) hands the database it started to the services it then imports in-process. */
export function provideDatabaseUrl(url: string): void {
  process.env.DATABASE_URL = url;
  cached = undefined;
}

/** A copy of this process's environment with `extra` laid over it: what a child process inherits, or the source
 *  handed to a parser that validates it. The one way to the raw environment outside this module. */
export function processEnvironment(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return { ...process.env, ...extra };
}

/** Tests change process.env between cases; production never calls this. */
export function resetEnvForTests(): void {
  cached = undefined;
}
