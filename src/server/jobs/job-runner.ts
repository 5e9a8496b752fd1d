// The control plane's job runner: Job rows (job-records.ts) are the state users see; pg-boss delivers "run job X"
// to exactly one worker among the replicas, expires a delivery whose worker vanished, and runs the schedules.
// A job is claimed through its row (queued → running), so a message delivered twice runs the job once. While a
// job runs, its worker renews the row; a sweep (at start and every half lease) puts back or fails the jobs whose
// worker stopped renewing, so no job stays running without a live worker.
import PgBoss from "pg-boss";
import type { PrismaClient } from "@/generated/prisma/client";
import type { Logger } from "@/server/log";
import type { JsonColumnInput } from "@/server/db/json-column";
import type { controlPlaneJobResultColumn } from "@/contracts/job-columns";
import {
  claimJob,
  completeJob,
  failJob,
  renewJobLease,
  reportJobProgress,
  requeueJob,
  sweepStaleJobs,
} from "./job-records";

export interface JobContext<P = unknown> {
  id: string;
  params: P;
  /** 1 for the first run, 2 after one requeue, … */
  attempt: number;
  /** Records progress (0..1) and what the job is doing; renews the lease. */
  progress(fraction: number, message: string): Promise<void>;
}

export interface JobKind<P = unknown> {
  /** The Job row's kind, e.g. "model.register_zoo". */
  kind: string;
  /** pg-boss queue: letters, digits, '-' and '_'. */
  queue: string;
  /** Runs one job; what it returns becomes the row's result. Throwing fails the job with the error's message. */
  run(ctx: JobContext<P>): Promise<JsonColumnInput<typeof controlPlaneJobResultColumn> | undefined>;
  /** Tries before a job whose worker keeps vanishing is failed. */
  maxAttempts: number;
  /** pg-boss expires a delivery not finished within this. */
  expireInSeconds: number;
}

/** Work that is not a Job row (housekeeping): a pg-boss queue with a cron schedule. */
export interface ScheduledTask {
  queue: string;
  cron: string;
  run(): Promise<unknown>;
}

export interface JobRunnerOptions {
  connectionString: string;
  prisma: PrismaClient;
  log: Logger;
  /** A running job not renewed within this has lost its worker (JOB_LEASE_TIMEOUT_MS). */
  leaseMs: number;
  kinds: ReadonlyArray<JobKind<never>>;
  scheduled?: readonly ScheduledTask[];
  /** pg-boss's schema (default "pgboss"). */
  schema?: string;
  /** How often an idle worker asks for work, in seconds (default 2); a local send wakes it at once. */
  pollingIntervalSeconds?: number;
}

export class JobRunner {
  private boss: PgBoss;
  private readonly kinds = new Map<string, JobKind<never>>();
  private readonly running = new Set<string>();
  private readonly workers = new Map<string, string>();
  private sweeper?: NodeJS.Timeout;
  private started = false;
  private stopping = false;

  constructor(private readonly options: JobRunnerOptions) {
    for (const kind of options.kinds) this.kinds.set(kind.kind, kind);
    this.boss = new PgBoss({ connectionString: options.connectionString, schema: options.schema ?? "pgboss", max: 4 });
    this.boss.on("error", (error) => options.log.error("pg-boss error", { error }));
  }

  async start(): Promise<void> {
    if (this.started) return;
    await this.boss.start();
    const pollingIntervalSeconds = this.options.pollingIntervalSeconds ?? 2;
    for (const kind of this.kinds.values()) {
      await this.boss.createQueue(kind.queue, {
        name: kind.queue,
        retryLimit: 0,
        expireInSeconds: kind.expireInSeconds,
      });
      const workerId = await this.boss.work<{ jobId: string }>(
        kind.queue,
        { batchSize: 1, pollingIntervalSeconds },
        async (jobs) => {
          for (const job of jobs) await this.execute(job.data.jobId);
        },
      );
      this.workers.set(kind.queue, workerId);
    }
    for (const task of this.options.scheduled ?? []) {
      await this.boss.createQueue(task.queue, { name: task.queue, retryLimit: 1, expireInSeconds: 15 * 60 });
      await this.boss.work(
        task.queue,
        { batchSize: 1, pollingIntervalSeconds: Math.max(pollingIntervalSeconds, 10) },
        async () => {
          const outcome = await task.run();
          this.options.log.info("scheduled task done", { queue: task.queue, outcome });
        },
      );
      await this.boss.schedule(task.queue, task.cron);
    }
    this.started = true;
    await this.sweep();
    // Queued rows whose message may have died with a previous process: send them again now (a row is claimed
    // once, so a duplicate message is harmless).
    const queued = await this.options.prisma.job.findMany({
      where: { kind: { in: [...this.kinds.keys()] }, agentId: null, state: "queued" },
      select: { id: true, kind: true },
    });
    for (const job of queued) await this.dispatch(job.id, job.kind);
    this.sweeper = setInterval(() => void this.sweep(), Math.max(1000, this.options.leaseMs / 2));
    this.sweeper.unref();
  }

  /** Sends a created (queued) job row to a worker. */
  async dispatch(jobId: string, kindName: string): Promise<void> {
    const kind = this.kinds.get(kindName);
    if (!kind) throw new Error(`no job kind "${kindName}" is registered with this runner`);
    await this.boss.send(kind.queue, { jobId }, { retryLimit: 0, expireInSeconds: kind.expireInSeconds });
    const workerId = this.workers.get(kind.queue);
    if (workerId) this.boss.notifyWorker(workerId);
  }

  /** Runs a scheduled task now (e.g. GC after a delete) on whichever worker takes it. */
  async trigger(queue: string): Promise<void> {
    await this.boss.send(queue, {}, { retryLimit: 0 });
  }

  /** Puts back and fails jobs whose worker is gone; sends again queued jobs nobody picked up. */
  async sweep(): Promise<void> {
    if (this.stopping) return;
    try {
      // Per kind, since the allowed attempts differ.
      for (const kind of this.kinds.values()) {
        const result = await sweepStaleJobs(
          { kinds: [kind.kind], leaseMs: this.options.leaseMs, maxAttempts: kind.maxAttempts },
          this.options.prisma,
        );
        for (const id of [...result.requeued, ...result.resend]) {
          if (!this.running.has(id)) await this.dispatch(id, kind.kind);
        }
        if (result.requeued.length || result.failed.length) {
          this.options.log.warn("jobs whose worker stopped", {
            kind: kind.kind,
            requeued: result.requeued,
            failed: result.failed,
          });
        }
      }
    } catch (error) {
      this.options.log.error("job sweep failed", { error });
    }
  }

  /** Claims and runs one job row; a no-op when the row is not queued (already taken, or ended). */
  async execute(jobId: string): Promise<void> {
    const prisma = this.options.prisma;
    const row = await claimJob(jobId, prisma);
    if (!row) return;
    const kind = this.kinds.get(row.kind);
    if (!kind) {
      await failJob(jobId, `no worker for job kind "${row.kind}"`, prisma);
      return;
    }
    this.running.add(jobId);
    const lease = setInterval(
      () => void renewJobLease(jobId, prisma).catch(() => undefined),
      Math.max(500, this.options.leaseMs / 3),
    );
    const log = this.options.log.child({ jobId, kind: row.kind, attempt: row.attempts });
    log.info("job started");
    try {
      const result = await (kind as JobKind<unknown>).run({
        id: jobId,
        params: row.params,
        attempt: row.attempts,
        progress: (fraction, message) => reportJobProgress(jobId, fraction, message, prisma),
      });
      if (this.stopping) return; // stop() has put it back in the queue
      await completeJob(jobId, result, "done", prisma);
      log.info("job done");
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (!this.stopping) await failJob(jobId, message, prisma);
      log.warn("job failed", { error });
    } finally {
      clearInterval(lease);
      this.running.delete(jobId);
    }
  }

  /** Stops taking work; jobs still running here go back to the queue for another worker (or the next start). */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    if (this.sweeper) clearInterval(this.sweeper);
    for (const id of this.running)
      await requeueJob(id, "the control plane stopped", this.options.prisma).catch(() => undefined);
    await this.boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => undefined);
  }
}
