// The control plane's job runner as the server runs it: the job kinds and scheduled tasks of this process, started
// once per process from instrumentation.ts (nodejs runtime) and kept on globalThis.
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { log } from "@/server/log";
import {
  ARTIFACT_GC_CRON,
  ARTIFACT_GC_QUEUE,
  collectArtifactGarbage,
} from "@/server/services/models-artifact-gc-service";
import { zooRegistrationJob } from "@/server/services/models-zoo-service";
import { pruneAgentMetrics } from "@/server/services/agent-heartbeat-service";
import { maintainMetricsPartitions } from "@/server/services/metrics-partitions-service";
import { sweepLostAgents } from "@/server/services/agent-jobs-service";
import { advanceSweeps } from "@/server/services/batching-sweeps-service";
import { pruneSignInThrottle } from "@/server/auth/sign-in-throttle";

// Raw heartbeats older than an hour and rollup day partitions past METRICS_RETENTION_DAYS (the days ahead created),
// every 10 minutes and once when the runner starts; jobs of agents that went silent, every minute (a claim sweeps
// too, but an agent that never polls again would leave its job running).
const METRICS_PRUNE_QUEUE = "metrics-prune";
const LOST_AGENTS_QUEUE = "lost-agents-sweep";
// Batching sweeps step after each heartbeat; every minute too, so a silent agent's sweep reaches its deadline and
// restores.
const BATCHING_SWEEPS_QUEUE = "batching-sweeps";
// Sign-in throttle rows whose window has passed (every client a flood of guesses came from leaves one), every 10 minutes.
const SIGN_IN_THROTTLE_PRUNE_QUEUE = "sign-in-throttle-prune";
import { currentJobRunner, setJobRunner } from "./job-dispatch";
import { JobRunner, type JobKind } from "./job-runner";

const globalForStart = globalThis as unknown as { packratJobRunnerStarting?: Promise<JobRunner> };

export function createControlPlaneJobRunner(options: {
  connectionString: string;
  leaseMs: number;
  pollingIntervalSeconds?: number;
}): JobRunner {
  return new JobRunner({
    connectionString: options.connectionString,
    prisma: db(),
    log: log.child({ component: "jobs" }),
    leaseMs: options.leaseMs,
    pollingIntervalSeconds: options.pollingIntervalSeconds,
    kinds: [zooRegistrationJob as JobKind<never>],
    scheduled: [
      { queue: ARTIFACT_GC_QUEUE, cron: ARTIFACT_GC_CRON, run: () => collectArtifactGarbage() },
      { queue: METRICS_PRUNE_QUEUE, cron: "*/10 * * * *", run: () => pruneAgentMetrics(env().METRICS_RETENTION_DAYS) },
      { queue: LOST_AGENTS_QUEUE, cron: "* * * * *", run: () => sweepLostAgents() },
      { queue: BATCHING_SWEEPS_QUEUE, cron: "* * * * *", run: () => advanceSweeps() },
      {
        queue: SIGN_IN_THROTTLE_PRUNE_QUEUE,
        cron: "*/10 * * * *",
        run: () => pruneSignInThrottle(db(), env().SIGN_IN_FAILURE_WINDOW_MS, Date.now()),
      },
    ],
  });
}

/** Starts this process's runner once (later calls return the same one). */
export function startControlPlaneJobs(): Promise<JobRunner> {
  const existing = currentJobRunner();
  if (existing) return Promise.resolve(existing);
  globalForStart.packratJobRunnerStarting ??= (async () => {
    const e = env();
    if (!e.DATABASE_URL) throw new Error("DATABASE_URL is not set; the job runner needs PostgreSQL");
    const runner = createControlPlaneJobRunner({ connectionString: e.DATABASE_URL, leaseMs: e.JOB_LEASE_TIMEOUT_MS });
    await runner.start();
    setJobRunner(runner);
    // The rollup partitions for today and the next two days exist from the start, not from the first scheduled
    // run. Not awaited: it may wait for another replica's pass (the advisory lock), and start-up should not. A
    // failure is logged (rows then wait in the DEFAULT partition) and the scheduled run tries again.
    void maintainMetricsPartitions(e.METRICS_RETENTION_DAYS).then(
      (result) => log.info("metrics partitions maintained", { ...result }),
      (error: Error) => log.error("metrics partitions not maintained", { error: error.message }),
    );
    // Jobs still running here go back to the queue when the server is stopped.
    const stop = () => void runner.stop();
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    log.info("job runner started", {
      kinds: [zooRegistrationJob.kind],
      scheduled: [ARTIFACT_GC_QUEUE, METRICS_PRUNE_QUEUE, LOST_AGENTS_QUEUE, BATCHING_SWEEPS_QUEUE],
    });
    return runner;
  })();
  return globalForStart.packratJobRunnerStarting.catch((error) => {
    globalForStart.packratJobRunnerStarting = undefined;
    throw error;
  });
}
