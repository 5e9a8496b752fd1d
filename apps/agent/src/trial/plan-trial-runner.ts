// Runs a plan trial in its own process (plan-trial-process.ts): places each plan's instances inside the CPUs it is
// given, as the serving process would (the allocator, pinned), forwards round progress, and returns each plan's
// per-round measurements. A plan that cannot be placed or whose instances fail to start is reported with its error;
// the others are still measured. Cancellation kills the process; so does running past the time limit.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { allocate } from "@packrat/core/allocator/allocate";
import { restrictTopology } from "@packrat/core/topology/topology-queries";
import type { HostTopology } from "@packrat/core/topology/types";
import { tsExecArgv } from "../ts-exec-argv";
import type { TrialMessage, TrialPlanRun, TrialRun, TrialTurn } from "./plan-trial-process";

export interface TrialPlanSpec {
  key: string;
  groups: Array<{ count: number; threads: number; batch: number }>;
}

export interface TrialRequest {
  modelPath: string;
  batch: number;
  dimensions: Record<string, number>;
  batchAxes?: Record<string, number | null>;
  plans: TrialPlanSpec[];
  budgetCpus: number[];
  rounds: number;
  roundMs: number;
  settleMs: number;
  minBatchesPerTurn: number;
  warmupIterations: number;
  allowSpinning: boolean;
  /** The whole trial, start-up included: rounds stop at this; the process is killed a grace period after it. */
  maxDurationMs: number;
}

export interface TrialPlanOutcome {
  key: string;
  error?: string;
  startMs?: number;
  turns: TrialTurn[];
}
export interface TrialOutcome {
  plans: TrialPlanOutcome[];
  stoppedEarly: boolean;
  durationMs: number;
}

export class TrialCancelledError extends Error {}

const KILL_GRACE_MS = 60_000;

export class PlanTrialRunner {
  private child?: ChildProcess;
  private cancelled = false;

  constructor(private readonly topology: HostTopology) {}

  cancel(): void {
    this.cancelled = true;
    this.child?.kill("SIGKILL");
  }

  /** `onRound` may throw to stop the trial (e.g. the job was cancelled). */
  async run(request: TrialRequest, onRound: (round: number, rounds: number) => Promise<void>): Promise<TrialOutcome> {
    const started = performance.now();
    const scoped = restrictTopology(this.topology, request.budgetCpus);
    const placed: TrialPlanRun[] = [];
    const outcomes = new Map<string, TrialPlanOutcome>(request.plans.map((p) => [p.key, { key: p.key, turns: [] }]));
    for (const plan of request.plans) {
      if (plan.groups.reduce((s, g) => s + g.count * g.batch, 0) !== request.batch) {
        outcomes.get(plan.key)!.error = `cannot start: its instances' batches do not add up to B = ${request.batch}`;
        continue;
      }
      try {
        const allocation = allocate(
          scoped,
          plan.groups.map(({ count, threads, batch }) => ({ count, threads, batch })),
          { spanning: "sockets" },
        );
        placed.push({
          key: plan.key,
          instances: allocation.instances.map((a) => ({ threads: a.threads, batch: a.batch, coreCpus: a.coreCpus })),
        });
      } catch (error) {
        outcomes.get(plan.key)!.error = `cannot start: ${(error as Error).message}`;
      }
    }
    if (placed.length === 0)
      return { plans: [...outcomes.values()], stoppedEarly: false, durationMs: performance.now() - started };
    if (this.cancelled) throw new TrialCancelledError("cancelled");
    const run: TrialRun = {
      modelPath: request.modelPath,
      batch: request.batch,
      dimensions: request.dimensions,
      ...(request.batchAxes ? { batchAxes: request.batchAxes } : {}),
      plans: placed,
      rounds: request.rounds,
      roundMs: request.roundMs,
      settleMs: request.settleMs,
      minBatchesPerTurn: request.minBatchesPerTurn,
      warmupIterations: request.warmupIterations,
      allowSpinning: request.allowSpinning,
      maxDurationMs: request.maxDurationMs,
    };
    const result = await this.runChild(run, onRound, outcomes);
    return {
      plans: [...outcomes.values()],
      stoppedEarly: result.stoppedEarly,
      durationMs: performance.now() - started,
    };
  }

  private runChild(
    run: TrialRun,
    onRound: (round: number, rounds: number) => Promise<void>,
    outcomes: Map<string, TrialPlanOutcome>,
  ): Promise<{ stoppedEarly: boolean }> {
    return new Promise((resolve, reject) => {
      const child = fork(fileURLToPath(new URL("./plan-trial-process.ts", import.meta.url)), [], {
        execArgv: tsExecArgv(),
        stdio: ["ignore", "inherit", "inherit", "ipc"],
      });
      this.child = child;
      let pending = Promise.resolve();
      let failure: Error | undefined;
      let stoppedEarly: boolean | undefined;
      let timedOut = false;
      const killer = setTimeout(() => {
        timedOut = true;
        child.kill("SIGKILL");
      }, run.maxDurationMs + KILL_GRACE_MS);
      child.on("message", (message: TrialMessage) => {
        if (message.kind === "started") {
          const o = outcomes.get(message.key)!;
          o.startMs = message.startMs;
          if (message.error) o.error = `failed to start: ${message.error}`;
        }
        if (message.kind === "round")
          pending = pending
            .then(() => onRound(message.round, message.rounds))
            .catch((error: Error) => {
              failure ??= error;
              child.kill("SIGKILL");
            });
        if (message.kind === "result") {
          stoppedEarly = message.stoppedEarly;
          for (const p of message.plans) outcomes.get(p.key)!.turns = p.turns;
        }
        if (message.kind === "error") failure ??= new Error(message.message);
      });
      child.on("exit", (code, signal) => {
        clearTimeout(killer);
        this.child = undefined;
        void pending.then(() => {
          if (this.cancelled) return reject(new TrialCancelledError("cancelled"));
          if (failure) return reject(failure);
          if (timedOut)
            return reject(
              new Error(
                `the trial ran past its limit of ${Math.round((run.maxDurationMs + KILL_GRACE_MS) / 1000)} s and was stopped`,
              ),
            );
          if (code !== 0 || stoppedEarly === undefined)
            return reject(new Error(`trial process exited (${signal ?? `code ${code}`}) before its result`));
          resolve({ stoppedEarly });
        });
      });
      child.send(run);
    });
  }
}
