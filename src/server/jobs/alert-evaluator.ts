// The alert evaluator as the server runs it: every ALERT_EVALUATION_INTERVAL_MS, one evaluation of the rules (one
// replica at a time, by advisory lock) and one pass over due webhook deliveries. Started once per process from
// instrumentation.ts (nodejs runtime) and kept on globalThis; rounds never overlap (each schedules the next).
import type { PrismaClient } from "@/generated/prisma/client";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { log as rootLog, type Logger } from "@/server/log";
import { deliverDueAlerts } from "@/server/services/alert-webhook-service";
import { evaluateAlertsOnce } from "@/server/services/alerts-evaluation-service";

/** The pause after a round is at least this many times the round's own duration. */
const ROUND_SHARE_INVERSE = 20;

export class AlertEvaluator {
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private round?: Promise<void>;
  rounds = 0;

  constructor(private readonly options: { intervalMs: number; prisma?: PrismaClient; log?: Logger }) {}

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
      const result = await evaluateAlertsOnce(prisma);
      if (result.opened || result.resolved) log.info("alerts evaluated", { ...result });
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
  }
}

const globalForEvaluator = globalThis as unknown as { packratAlertEvaluator?: AlertEvaluator };

/** Starts this process's evaluator once (later calls return the same one). */
export function startAlertEvaluator(): AlertEvaluator {
  if (globalForEvaluator.packratAlertEvaluator) return globalForEvaluator.packratAlertEvaluator;
  const evaluator = new AlertEvaluator({
    intervalMs: env().ALERT_EVALUATION_INTERVAL_MS,
    log: rootLog.child({ component: "alerts" }),
  });
  globalForEvaluator.packratAlertEvaluator = evaluator;
  evaluator.start();
  const stop = () => void evaluator.stop();
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
  return evaluator;
}
