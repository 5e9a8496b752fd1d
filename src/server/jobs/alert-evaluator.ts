// The alert evaluator as the server runs it: every ALERT_EVALUATION_INTERVAL_MS, one evaluation of the rules (by the
// replica holding the evaluator's lease, leader-lease.ts: the others neither read nor decode the fleet's rows) and
// one pass over due webhook deliveries. Started once per process from
// instrumentation.ts (nodejs runtime) and kept on globalThis; rounds never overlap (each schedules the next).
import type { PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { log as rootLog, type Logger } from "@/server/log";
import { deliverDueAlerts } from "@/server/services/alert-webhook-service";
import { evaluateAlertsOnce } from "@/server/services/alerts-evaluation-service";
import { pgLeaderLease, type LeaderLease } from "./leader-lease";

/** The evaluator's lease key ("alertlse" as ASCII); the round's own transaction lock is another key. */
export const ALERT_EVALUATOR_LEASE = 0x616c6572746c7365n;

/** The pause after a round is at least this many times the round's own duration. */
const ROUND_SHARE_INVERSE = 20;

export class AlertEvaluator {
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private round?: Promise<void>;
  rounds = 0;

  constructor(
    private readonly options: {
      intervalMs: number;
      prisma?: PrismaClient;
      log?: Logger;
      /** Evaluate only while holding it (one replica of many); without one, every round evaluates. */
      lease?: LeaderLease;
    },
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      const started = performance.now();
      // A round reads the whole fleet: on a large one the pause grows with it, so the rounds take at most
      // 1 / ROUND_SHARE_INVERSE of the replica's time whatever the fleet's size (the interval is the least pause).
      this.round = this.runOnce().finally(() =>
        this.schedule(Math.max(this.options.intervalMs, (performance.now() - started) * ROUND_SHARE_INVERSE)),
      );
    }, delayMs);
  }

  /** One round; errors are logged, never thrown (the next round tries again). */
  async runOnce(): Promise<void> {
    const log = this.options.log ?? rootLog;
    const prisma = this.options.prisma ?? db();
    try {
      const lease = this.options.lease;
      const wasHeld = lease?.held ?? true;
      if (!lease || (await lease.hold())) {
        if (!wasHeld) log.info("alert evaluator lease taken: this replica evaluates the rules");
        const result = await evaluateAlertsOnce(prisma);
        if (result.opened || result.resolved) log.info("alerts evaluated", { ...result });
      }
    } catch (error) {
      log.error("alert evaluation failed", { error });
    }
    try {
      await deliverDueAlerts(prisma);
    } catch (error) {
      log.error("alert delivery failed", { error });
    }
    this.rounds++;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.round;
    await this.options.lease?.release();
  }
}

const globalForEvaluator = globalThis as unknown as { packratAlertEvaluator?: AlertEvaluator };

/** Starts this process's evaluator once (later calls return the same one). */
export function startAlertEvaluator(): AlertEvaluator {
  if (globalForEvaluator.packratAlertEvaluator) return globalForEvaluator.packratAlertEvaluator;
  const { ALERT_EVALUATION_INTERVAL_MS, DATABASE_URL } = env();
  const evaluator = new AlertEvaluator({
    intervalMs: ALERT_EVALUATION_INTERVAL_MS,
    log: rootLog.child({ component: "alerts" }),
    lease: DATABASE_URL ? pgLeaderLease(DATABASE_URL, ALERT_EVALUATOR_LEASE) : undefined,
  });
  globalForEvaluator.packratAlertEvaluator = evaluator;
  evaluator.start();
  const stop = () => void evaluator.stop();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return evaluator;
}
