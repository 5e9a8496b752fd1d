// The profiler on this host: tiny CNN over t ∈ {1, 2} × b ∈ {1, 2, 4, 8}, in interleaved rounds, one pinned
// instance per thread count, one running at a time.
import { fork, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { DECISION_STOPPING_RULE, PAPER_STOPPING_RULE } from "@packrat/core/profiling/stopping-rule";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { readHostTopology } from "../topology-reader";
import { tsExecArgv } from "../ts-exec-argv";
import { ProfileCancelledError, ProfileRunner, type ProfiledCell } from "./profile-runner";

const dir = mkdtempSync(join(tmpdir(), "packrat-profiler-"));
const modelPath = join(dir, "tiny-cnn.onnx");
writeFileSync(modelPath, buildTinyCnn({ seed: 3, producerVersion: "packrat-test" }));
const { topology, allowedCpus } = readHostTopology();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The last report of each cell (the decision-aware rule may report a cell again after refining it). */
function lastOf(cells: ProfiledCell[]): Map<string, ProfiledCell> {
  return new Map(cells.map((c) => [`${c.threads}x${c.batch}`, c]));
}

// Waits until the spinner has run for 200 ms of CPU time of its own (taskset execs node in the same process): on a
// loaded host node's start-up can outlast any fixed pause, and a profile measured before it spins sees no one.
async function untilSpinning(pid: number): Promise<void> {
  for (;;) {
    // /proc/PID/stat after "comm) ": state is field 3, utime field 14, stime field 15, in clock ticks (100 a second).
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    if (Number(fields[11]) + Number(fields[12]) >= 20) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("profile runner", () => {
  it("a profiler process stays up between commands when the agent's own preload unref'd its IPC channel", async () => {
    // npm start runs the agent with a preload that unrefs the supervisor's channel; forked children inherit it
    // through execArgv. The profiler waits on its parent between rounds, so it must not exit there.
    const preload = fileURLToPath(new URL("../../../../scripts/lib/exit-on-disconnect.mjs", import.meta.url));
    const child = fork(fileURLToPath(new URL("./profiler-process.ts", import.meta.url)), [], {
      execArgv: ["--import", preload, ...tsExecArgv()],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const exited = new Promise<string>((resolve) =>
      child.once("exit", (code, signal) => resolve(`exited (${signal ?? code})`)),
    );
    const reply = (command: object) =>
      Promise.race([
        new Promise<{ kind: string }>((resolve) => {
          child.once("message", resolve);
          child.send(command);
        }),
        exited,
      ]);
    try {
      const cpus = [allowedCpus[0]!];
      expect(
        await reply({ kind: "init", modelPath, threads: 1, coreCpus: [cpus], dimensions: {}, batches: [1] }),
      ).toMatchObject({ kind: "ready" });
      await new Promise((r) => setTimeout(r, 500)); // idle, as between rounds: an unref'd channel lets the process end here
      expect(await reply({ kind: "round", tasks: [{ batch: 1, warmup: 1, iterations: 3 }] })).toMatchObject({
        kind: "round",
      });
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  it("measures 8 cells in rounds under the decision-aware rule, and its b = 8 cell agrees with a direct ORT measurement", async () => {
    const reports: ProfiledCell[] = [];
    await new ProfileRunner(topology).run(
      {
        modelPath,
        threads: [1, 2],
        batches: [1, 2, 4, 8],
        dimensions: {},
        rule: DECISION_STOPPING_RULE,
        budgetCpus: allowedCpus,
        maxRemeasures: 0,
        seed: 1,
      },
      async (cell) => {
        reports.push(cell);
      },
    );
    const cells = lastOf(reports);
    expect([...cells.keys()].sort()).toEqual(["1x1", "1x2", "1x4", "1x8", "2x1", "2x2", "2x4", "2x8"]);
    // No ordering claim between cells: sub-millisecond cells on a loaded host can swap. That the batch is really
    // run is checked below, loosely, against a direct measurement of b = 8.
    for (const c of cells.values()) {
      // Floor: 4 rounds of 3; cap: 30 iterations (or the time cap).
      expect(c.rounds).toBeGreaterThanOrEqual(4);
      expect(c.stats.iterations).toBeGreaterThanOrEqual(12);
      expect(c.stats.iterations).toBeLessThanOrEqual(30);
      expect(["settled", "max-iterations", "time-cap"]).toContain(c.stopReason);
      expect(c.peakRssBytes).toBeGreaterThan(0);
      expect(c.stats.p99Ms).toBeGreaterThanOrEqual(c.stats.p50Ms);
      expect(c.stats.ciHalfWidthMs).toBeGreaterThan(0);
      expect(c.interferencePct).toBeGreaterThanOrEqual(0);
    }
    // Direct: 50 runs of b = 8 at one thread in this process; medians on both sides (one preemption of a ~1 ms run
    // moves a mean by tens of percent), and still a generous factor (machines are noisy and shared).
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    const input = new ort.Tensor("float32", new Float32Array(8 * 3 * 32 * 32).fill(0.5), [8, 3, 32, 32]);
    for (let i = 0; i < 5; i++) await session.run({ input });
    const times: number[] = [];
    for (let i = 0; i < 50; i++) {
      const t0 = performance.now();
      await session.run({ input });
      times.push(performance.now() - t0);
    }
    await session.release();
    times.sort((a, b) => a - b);
    const direct = (times[24]! + times[25]!) / 2;
    const profiled = cells.get("1x8")!.stats.p50Ms;
    expect(profiled / direct).toBeGreaterThan(0.25);
    expect(profiled / direct).toBeLessThan(4);
  });

  it("resumes without the measured cells and runs the fixed paper rule exactly, in 10 rounds of 10", async () => {
    const cells: ProfiledCell[] = [];
    await new ProfileRunner(topology).run(
      {
        modelPath,
        threads: [1],
        batches: [1, 2, 4],
        dimensions: {},
        rule: PAPER_STOPPING_RULE,
        budgetCpus: allowedCpus,
        done: [{ threads: 1, batch: 1 }],
        maxRemeasures: 0,
      },
      async (cell) => {
        cells.push(cell);
      },
    );
    expect(cells.map((c) => c.batch).sort()).toEqual([2, 4]);
    expect(cells.every((c) => c.stats.iterations === 100 && c.stopReason === "fixed-count" && c.rounds === 10)).toBe(
      true,
    );
  });

  it("measures one cell after another when not interleaved, with the same estimator over blocks", async () => {
    const order: string[] = [];
    await new ProfileRunner(topology).run(
      {
        modelPath,
        threads: [1],
        batches: [1, 2],
        dimensions: {},
        rule: { kind: "fixed", warmup: 2, iterations: 20, roundIterations: 5 },
        budgetCpus: allowedCpus,
        interleave: false,
        maxRemeasures: 0,
      },
      async (cell) => {
        order.push(`${cell.batch}:${cell.rounds}:${cell.stats.iterations}`);
      },
    );
    // Grid order, each cell's 20 samples in 4 blocks of 5.
    expect(order).toEqual(["1:4:20", "2:4:20"]);
  });

  it("sees another process spinning on the profiled CPU, measures the cell again, then flags it", async () => {
    const cpu = allowedCpus[0]!;
    // A busy loop pinned to the one CPU the instance gets: the scheduler shares that CPU between the two.
    const spinner = spawn("taskset", ["-c", String(cpu), process.execPath, "-e", "for (;;) {}"], { stdio: "ignore" });
    try {
      await untilSpinning(spinner.pid!);
      const cells: ProfiledCell[] = [];
      await new ProfileRunner(topology).run(
        {
          modelPath,
          threads: [1],
          batches: [8],
          dimensions: {},
          // Rounds of 100 iterations (tens of milliseconds): /proc/stat counts CPU time in 10 ms ticks, and a round
          // of 10 tiny-CNN iterations (a few ms) often spans no tick at all, so it could see no one else.
          rule: { kind: "fixed", warmup: 2, iterations: 400, roundIterations: 100 },
          budgetCpus: [cpu],
          maxRemeasures: 1,
        },
        async (cell) => {
          cells.push(cell);
        },
      );
      expect(cells).toHaveLength(1);
      expect(cells[0]!.interferencePct).toBeGreaterThan(10);
      expect(cells[0]!.remeasured).toBe(1);
      expect(cells[0]!.flagged).toBe(true);
    } finally {
      spinner.kill("SIGKILL");
    }
  });

  it("stops when cancelled", async () => {
    const runner = new ProfileRunner(topology);
    const seen: ProfiledCell[] = [];
    const run = runner.run(
      {
        modelPath,
        threads: [1, 2],
        batches: [1, 2, 4, 8],
        dimensions: {},
        rule: PAPER_STOPPING_RULE,
        budgetCpus: allowedCpus,
        maxRemeasures: 0,
      },
      async (cell) => {
        seen.push(cell);
        if (seen.length === 1) runner.cancel();
      },
    );
    await expect(run).rejects.toBeInstanceOf(ProfileCancelledError);
    expect(seen.length).toBe(1);
  });
});
