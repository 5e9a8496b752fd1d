// Runs a profiling grid in interleaved rounds (src/core/profiling/round-plan.ts): one profiler process per thread
// count, all kept alive, pinned inside the core budget, only one running at a time. Every cell is reported when
// its stopping rule stops it (again, if the decision-aware rule later needs it refined). A cell on which other
// processes took more than `interferenceThreshold` of the profiled CPUs' time is measured again from scratch, at
// most `maxRemeasures` times, then reported flagged. Cancellation kills the processes.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { allocate } from "@packrat/core/allocator/allocate";
import { restrictTopology } from "@packrat/core/topology/topology-queries";
import type { HostTopology } from "@packrat/core/topology/types";
import { blockMeans } from "@packrat/core/profiling/robust-estimate";
import { cellKey, cellStopReason, estimateOf, planRound, type CellProgress } from "@packrat/core/profiling/round-plan";
import {
  cellStatistics,
  CUT_SHORT_MIN_ROUNDS,
  CUT_SHORT_STOP_REASON,
  type StoppingRule,
} from "@packrat/core/profiling/stopping-rule";
import { LatencyHistogram } from "@packrat/core/stats/histogram";
import type { ProfileCellReport } from "@packrat/contracts/agent-jobs";
import type { ProfilerCommand, ProfilerMessage, TaskResult } from "./profiler-process";
import { tsExecArgv } from "../ts-exec-argv";

export interface ProfiledCell {
  threads: number;
  batch: number;
  /** meanMs and ciHalfWidthMs: the robust estimate over rounds and its interval; the rest over every iteration. */
  stats: ReturnType<typeof cellStatistics>;
  stopReason: string;
  peakRssBytes: number | null;
  histogram: string;
  rounds: number;
  /** Share of the profiled CPUs' time that other processes took while this cell was measured, in percent. */
  interferencePct: number;
  remeasured: number;
  flagged: boolean;
}

export interface ProfileGrid {
  modelPath: string;
  threads: number[];
  batches: number[];
  dimensions: Record<string, number>;
  batchAxes?: Record<string, number | null>;
  rule: StoppingRule;
  budgetCpus: number[];
  /** Cells already measured (a resumed job): not measured again; with their estimate the decision rule uses it. */
  done?: Array<{ threads: number; batch: number; meanMs?: number; ciHalfWidthMs?: number }>;
  /** false: one cell after another (the old way; for comparisons). Default true. */
  interleave?: boolean;
  /** Seed of the round order (default: from the clock). */
  seed?: number;
  /** T for the decision-aware rule (default: the largest thread count). */
  cores?: number;
  /** Fraction of the profiled CPUs' time others may take before a cell is measured again (default 0.1). */
  interferenceThreshold?: number;
  maxRemeasures?: number;
}

export const DEFAULT_INTERFERENCE_THRESHOLD = 0.1;
export const DEFAULT_MAX_REMEASURES = 1;

export class ProfileCancelledError extends Error {}

/** The wire shape of a measured cell. */
export function cellReport(cell: ProfiledCell): ProfileCellReport {
  return {
    threads: cell.threads,
    batch: cell.batch,
    ...cell.stats,
    stopReason: cell.stopReason,
    peakRssBytes: cell.peakRssBytes,
    histogram: cell.histogram,
    rounds: cell.rounds,
    interferencePct: cell.interferencePct,
    remeasured: cell.remeasured,
    flagged: cell.flagged,
  };
}

interface CellState {
  threads: number;
  batch: number;
  samples: number[];
  roundMeans: number[];
  elapsedMs: number;
  otherCpuMs: number;
  capacityCpuMs: number;
  peakRss: number | null;
  remeasured: number;
  /** Measured in an earlier job: fixed. */
  previous?: { meanMs: number; ciHalfWidthMs: number };
  reported?: string;
}

class ProfilerChild {
  private waiting?: { resolve: (m: ProfilerMessage) => void; reject: (e: Error) => void };
  exited = false;
  constructor(readonly process: ChildProcess) {
    process.on("message", (m: ProfilerMessage) => {
      const w = this.waiting;
      this.waiting = undefined;
      if (!w) return;
      if (m.kind === "error") w.reject(new Error(m.message));
      else w.resolve(m);
    });
    process.on("exit", (code, signal) => {
      this.exited = true;
      this.waiting?.reject(new Error(`profiler process exited (${signal ?? `code ${code}`})`));
      this.waiting = undefined;
    });
    // A child that died (killed on cancel, or crashed) before its exit event is seen makes the next send fail with
    // EPIPE: that is this request's failure, never an unhandled 'error' that takes the whole agent down.
    process.on("error", (error) => {
      this.waiting?.reject(new Error(`profiler process: ${error.message}`));
      this.waiting = undefined;
    });
  }

  request(command: ProfilerCommand): Promise<ProfilerMessage> {
    if (this.exited || !this.process.connected) return Promise.reject(new Error("profiler process exited"));
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.process.send(command, (error) => {
        if (!error || this.waiting?.reject !== reject) return;
        this.waiting = undefined;
        reject(new Error(`profiler process: ${error.message}`));
      });
    });
  }

  /** Asks the child to stop, then kills it if it has not gone in 5 s. */
  stop(): void {
    if (this.exited) return;
    if (this.process.connected) this.process.send({ kind: "stop" } satisfies ProfilerCommand, () => undefined);
    setTimeout(() => this.process.kill("SIGKILL"), 5000).unref();
  }
}

export class ProfileRunner {
  private children: ProfilerChild[] = [];
  private cancelled = false;
  private current?: { grid: ProfileGrid; states: CellState[] };

  constructor(private readonly topology: HostTopology) {}

  cancel(): void {
    this.cancelled = true;
    for (const c of this.children) c.process.kill("SIGKILL");
  }

  /** Measures every missing cell; `onCell` may throw to stop (e.g. the job was cancelled). */
  async run(
    grid: ProfileGrid,
    onCell: (cell: ProfiledCell) => Promise<void>,
    onRound?: (round: number, measuring: number) => Promise<void>,
  ): Promise<void> {
    const scoped = restrictTopology(this.topology, grid.budgetCpus);
    const previous = new Map((grid.done ?? []).map((c) => [cellKey(c.threads, c.batch), c]));
    const states: CellState[] = [];
    for (const threads of grid.threads) {
      for (const batch of grid.batches) {
        const p = previous.get(cellKey(threads, batch));
        const state: CellState = {
          threads,
          batch,
          samples: [],
          roundMeans: [],
          elapsedMs: 0,
          otherCpuMs: 0,
          capacityCpuMs: 0,
          peakRss: null,
          remeasured: 0,
        };
        if (p) {
          if (p.meanMs === undefined || !(p.meanMs > 0)) continue; // no estimate to plan with: leave it out
          state.previous = { meanMs: p.meanMs, ciHalfWidthMs: p.ciHalfWidthMs ?? 0 };
        }
        states.push(state);
      }
    }
    const byKey = new Map(states.map((s) => [cellKey(s.threads, s.batch), s]));
    this.current = { grid, states };
    const children = new Map<number, ProfilerChild>();
    const threshold = grid.interferenceThreshold ?? DEFAULT_INTERFERENCE_THRESHOLD;
    const maxRemeasures = grid.maxRemeasures ?? DEFAULT_MAX_REMEASURES;
    let seed = grid.seed ?? Math.floor(Math.random() * 2 ** 31);
    let round = 0;
    try {
      for (;;) {
        if (this.cancelled) throw new ProfileCancelledError("cancelled");
        const progress: CellProgress[] = states.map((s) =>
          s.previous
            ? // A cell from an earlier job: two identical "rounds" stand for its estimate; its interval is taken as is.
              {
                threads: s.threads,
                batch: s.batch,
                roundMeansMs: [s.previous.meanMs, s.previous.meanMs],
                iterations: Number.MAX_SAFE_INTEGER,
                elapsedMs: 0,
              }
            : {
                threads: s.threads,
                batch: s.batch,
                roundMeansMs: s.roundMeans,
                iterations: s.samples.length,
                elapsedMs: s.elapsedMs,
              },
        );
        const decision = planRound(grid.rule, progress, seed++, {
          cores: grid.cores,
          maxBatch: Math.max(...grid.batches),
          interleave: grid.interleave,
        });
        // Report what stopped since the last round (or stopped again after more rounds).
        const settle = async (s: CellState, reason: string) => {
          if (s.previous || s.reported === `${reason}:${s.samples.length}`) return;
          const share = s.capacityCpuMs > 0 ? s.otherCpuMs / s.capacityCpuMs : 0;
          if (share > threshold && s.remeasured < maxRemeasures) {
            Object.assign(s, {
              samples: [],
              roundMeans: [],
              elapsedMs: 0,
              otherCpuMs: 0,
              capacityCpuMs: 0,
              remeasured: s.remeasured + 1,
              reported: undefined,
            });
            return;
          }
          s.reported = `${reason}:${s.samples.length}`;
          await onCell(this.cellOf(s, grid, reason, share > threshold));
          if (this.cancelled) throw new ProfileCancelledError("cancelled");
        };
        for (const [key, reason] of decision.stopped) await settle(byKey.get(key)!, reason);
        const groups = decision.groups;
        const pending = states.some((s) => !s.previous && s.samples.length === 0);
        if (groups.length === 0 && !pending) break;
        if (groups.length === 0) continue; // cells reset for re-measuring: plan them in the next round
        round++;
        if (onRound)
          await onRound(
            round,
            groups.reduce((n, g) => n + g.tasks.length, 0),
          );
        if (this.cancelled) throw new ProfileCancelledError("cancelled");
        for (const group of groups) {
          if (this.cancelled) throw new ProfileCancelledError("cancelled");
          let child = children.get(group.threads);
          if (!child) {
            child = await this.spawn(scoped, grid, group.threads);
            children.set(group.threads, child);
          }
          const reply = await child.request({
            kind: "round",
            tasks: group.tasks.map((t) => ({ batch: t.batch, warmup: t.warmup, iterations: t.iterations })),
          });
          if (reply.kind !== "round") throw new Error(`profiler process answered ${reply.kind}`);
          for (const r of reply.results) this.record(byKey.get(cellKey(group.threads, r.batch))!, r, grid);
          // A cell that stops by its own count or precision is reported at once, not at the end of the round.
          for (const r of reply.results) {
            const s = byKey.get(cellKey(group.threads, r.batch))!;
            const reason = cellStopReason(grid.rule, {
              threads: s.threads,
              batch: s.batch,
              roundMeansMs: s.roundMeans,
              iterations: s.samples.length,
              elapsedMs: s.elapsedMs,
            });
            if (reason) await settle(s, reason);
          }
        }
      }
    } catch (error) {
      if (this.cancelled) throw new ProfileCancelledError("cancelled");
      throw error;
    } finally {
      for (const c of children.values()) c.stop();
      this.children = [];
    }
  }

  /**
   * After a cancel: the cells not yet reported that have at least CUT_SHORT_MIN_ROUNDS rounds, as cut-short cells
   * (their estimate and interval from the rounds measured; stop reason CUT_SHORT_STOP_REASON).
   */
  cutShortCells(): ProfiledCell[] {
    if (!this.current) return [];
    const { grid, states } = this.current;
    const threshold = grid.interferenceThreshold ?? DEFAULT_INTERFERENCE_THRESHOLD;
    return states
      .filter((s) => !s.previous && s.reported === undefined && s.roundMeans.length >= CUT_SHORT_MIN_ROUNDS)
      .map((s) =>
        this.cellOf(s, grid, CUT_SHORT_STOP_REASON, s.capacityCpuMs > 0 && s.otherCpuMs / s.capacityCpuMs > threshold),
      );
  }

  private record(s: CellState, r: TaskResult, grid: ProfileGrid): void {
    s.samples.push(...r.samplesMs);
    s.elapsedMs += r.elapsedMs;
    s.otherCpuMs += r.otherCpuMs;
    s.capacityCpuMs += r.capacityCpuMs;
    if (r.peakRssBytes !== null) s.peakRss = Math.max(s.peakRss ?? 0, r.peakRssBytes);
    if (grid.interleave === false) {
      // One cell at a time: its consecutive samples cut into blocks of a round's size, for the same estimator.
      const per = grid.rule.roundIterations ?? 10;
      s.roundMeans = blockMeans(s.samples, Math.max(1, Math.round(s.samples.length / per)));
    } else if (r.samplesMs.length > 0) {
      s.roundMeans.push(r.samplesMs.reduce((a, b) => a + b, 0) / r.samplesMs.length);
    }
  }

  private cellOf(s: CellState, grid: ProfileGrid, reason: string, flagged: boolean): ProfiledCell {
    const stats = cellStatistics(s.samples);
    const estimate = estimateOf(
      {
        threads: s.threads,
        batch: s.batch,
        roundMeansMs: s.roundMeans,
        iterations: s.samples.length,
        elapsedMs: s.elapsedMs,
      },
      grid.rule,
    );
    const histogram = LatencyHistogram.create();
    for (const x of s.samples) histogram.recordMs(x);
    return {
      threads: s.threads,
      batch: s.batch,
      stopReason: reason,
      peakRssBytes: s.peakRss,
      histogram: histogram.encode(),
      rounds: s.roundMeans.length,
      stats: {
        ...stats,
        meanMs: estimate.estimateMs,
        ciHalfWidthMs: Number.isFinite(estimate.halfWidthMs) ? estimate.halfWidthMs : 0,
      },
      interferencePct: s.capacityCpuMs > 0 ? (100 * s.otherCpuMs) / s.capacityCpuMs : 0,
      remeasured: s.remeasured,
      flagged,
    };
  }

  private async spawn(scoped: HostTopology, grid: ProfileGrid, threads: number): Promise<ProfilerChild> {
    const [instance] = allocate(scoped, [{ count: 1, threads, batch: 1 }], { spanning: "sockets" }).instances;
    const proc = fork(fileURLToPath(new URL("./profiler-process.ts", import.meta.url)), [], {
      execArgv: tsExecArgv(),
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const child = new ProfilerChild(proc);
    this.children.push(child);
    if (this.cancelled) proc.kill("SIGKILL");
    const reply = await child.request({
      kind: "init",
      modelPath: grid.modelPath,
      threads,
      coreCpus: instance!.coreCpus,
      dimensions: grid.dimensions,
      batches: grid.batches,
      ...(grid.batchAxes ? { batchAxes: grid.batchAxes } : {}),
    });
    if (reply.kind !== "ready") throw new Error(`profiler process answered ${reply.kind}`);
    return child;
  }
}
