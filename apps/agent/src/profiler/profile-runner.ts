// Runs a profiling grid one thread count at a time (one profiler process each), pinned inside the core budget,
// and reports every cell as it finishes. Cancellation kills the running process.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { allocate } from "../../../../src/core/allocator/allocate";
import { restrictTopology } from "../../../../src/core/topology/topology-queries";
import type { HostTopology } from "../../../../src/core/topology/types";
import type { StoppingRule } from "../../../../src/core/profiling/stopping-rule";
import type { ProfilerMessage, ProfilerRun } from "./profiler-process";
import { tsExecArgv } from "../ts-exec-argv";

export type ProfiledCell = Extract<ProfilerMessage, { kind: "cell" }>;

export interface ProfileGrid {
  modelPath: string;
  threads: number[];
  batches: number[];
  dimensions: Record<string, number>;
  batchAxes?: Record<string, number | null>;
  rule: StoppingRule;
  budgetCpus: number[];
  /** Cells already measured (a resumed job): skipped. */
  done?: Array<{ threads: number; batch: number }>;
}

export class ProfileCancelledError extends Error {}

export class ProfileRunner {
  private child?: ChildProcess;
  private cancelled = false;

  constructor(private readonly topology: HostTopology) {}

  cancel(): void {
    this.cancelled = true;
    this.child?.kill("SIGKILL");
  }

  /** Measures every missing cell; `onCell` may throw to stop (e.g. the job was cancelled). */
  async run(grid: ProfileGrid, onCell: (cell: ProfiledCell) => Promise<void>): Promise<void> {
    const scoped = restrictTopology(this.topology, grid.budgetCpus);
    const done = new Set((grid.done ?? []).map((c) => `${c.threads}x${c.batch}`));
    for (const threads of grid.threads) {
      const batches = grid.batches.filter((b) => !done.has(`${threads}x${b}`));
      if (batches.length === 0) continue;
      if (this.cancelled) throw new ProfileCancelledError("cancelled");
      const [instance] = allocate(scoped, [{ count: 1, threads, batch: 1 }], { spanning: "sockets" }).instances;
      const run: ProfilerRun = { modelPath: grid.modelPath, threads, coreCpus: instance!.coreCpus, batches, dimensions: grid.dimensions, ...(grid.batchAxes ? { batchAxes: grid.batchAxes } : {}), rule: grid.rule };
      await this.runOne(run, onCell);
    }
  }

  private runOne(run: ProfilerRun, onCell: (cell: ProfiledCell) => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const child = fork(fileURLToPath(new URL("./profiler-process.ts", import.meta.url)), [], { execArgv: tsExecArgv(), stdio: ["ignore", "inherit", "inherit", "ipc"] });
      this.child = child;
      let pending = Promise.resolve();
      let failure: Error | undefined;
      child.on("message", (message: ProfilerMessage) => {
        if (message.kind === "cell") pending = pending.then(() => onCell(message)).catch((error: Error) => { failure ??= error; child.kill("SIGKILL"); });
        if (message.kind === "error") failure ??= new Error(message.message);
      });
      child.on("exit", (code, signal) => {
        this.child = undefined;
        void pending.then(() => {
          if (this.cancelled) return reject(new ProfileCancelledError("cancelled"));
          if (failure) return reject(failure);
          if (code !== 0) return reject(new Error(`profiler process exited (${signal ?? `code ${code}`})`));
          resolve();
        });
      });
      child.send(run);
    });
  }
}
