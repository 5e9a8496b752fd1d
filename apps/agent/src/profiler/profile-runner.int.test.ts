// The profiler on this host: tiny CNN over t ∈ {1, 2} × b ∈ {1, 2, 4, 8}, one pinned instance at a time.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { afterAll, describe, expect, it } from "vitest";
import { DEFAULT_STOPPING_RULE, PAPER_STOPPING_RULE } from "../../../../src/core/profiling/stopping-rule";
import { buildTinyCnn } from "../../../../src/modelzoo/tiny-models";
import { readHostTopology } from "../topology-reader";
import { ProfileCancelledError, ProfileRunner, type ProfiledCell } from "./profile-runner";

const dir = mkdtempSync(join(tmpdir(), "packrat-profiler-"));
const modelPath = join(dir, "tiny-cnn.onnx");
writeFileSync(modelPath, buildTinyCnn({ seed: 3, producerVersion: "packrat-test" }));
const { topology, allowedCpus } = readHostTopology();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("profile runner", () => {
  it("measures 8 cells, and its b = 8 cell agrees with a direct ORT measurement", async () => {
    const cells: ProfiledCell[] = [];
    await new ProfileRunner(topology).run(
      { modelPath, threads: [1, 2], batches: [1, 2, 4, 8], dimensions: {}, rule: DEFAULT_STOPPING_RULE, budgetCpus: allowedCpus },
      async (cell) => { cells.push(cell); },
    );
    expect(cells.map((c) => `${c.threads}x${c.batch}`)).toEqual(["1x1", "1x2", "1x4", "1x8", "2x1", "2x2", "2x4", "2x8"]);
    // No ordering claim between cells: sub-millisecond cells on a loaded host can swap. That the batch is really
    // run is checked below, loosely, against a direct measurement of b = 8.
    for (const c of cells) {
      expect(c.stats.iterations).toBeGreaterThanOrEqual(10);
      expect(c.stats.iterations).toBeLessThanOrEqual(200);
      expect(c.peakRssBytes).toBeGreaterThan(0);
      expect(c.stats.p99Ms).toBeGreaterThanOrEqual(c.stats.p50Ms);
    }
    // Direct: 50 runs of b = 8 at one thread in this process; medians on both sides (one preemption of a ~1 ms run
    // moves a mean by tens of percent), and still a generous factor (machines are noisy and shared).
    const session = await ort.InferenceSession.create(modelPath, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    const input = new ort.Tensor("float32", new Float32Array(8 * 3 * 32 * 32).fill(0.5), [8, 3, 32, 32]);
    for (let i = 0; i < 5; i++) await session.run({ input });
    const times: number[] = [];
    for (let i = 0; i < 50; i++) { const t0 = performance.now(); await session.run({ input }); times.push(performance.now() - t0); }
    await session.release();
    times.sort((a, b) => a - b);
    const direct = (times[24]! + times[25]!) / 2;
    const profiled = cells.find((c) => c.threads === 1 && c.batch === 8)!.stats.p50Ms;
    expect(profiled / direct).toBeGreaterThan(0.25);
    expect(profiled / direct).toBeLessThan(4);
  });

  it("resumes at the first missing cell and runs the fixed paper rule exactly", async () => {
    const cells: ProfiledCell[] = [];
    await new ProfileRunner(topology).run(
      { modelPath, threads: [1], batches: [1, 2, 4], dimensions: {}, rule: PAPER_STOPPING_RULE, budgetCpus: allowedCpus, done: [{ threads: 1, batch: 1 }] },
      async (cell) => { cells.push(cell); },
    );
    expect(cells.map((c) => c.batch)).toEqual([2, 4]);
    expect(cells.every((c) => c.stats.iterations === 100 && c.stopReason === "fixed-count")).toBe(true);
  });

  it("stops when cancelled", async () => {
    const runner = new ProfileRunner(topology);
    const seen: ProfiledCell[] = [];
    const run = runner.run(
      { modelPath, threads: [1, 2], batches: [1, 2, 4, 8], dimensions: {}, rule: PAPER_STOPPING_RULE, budgetCpus: allowedCpus },
      async (cell) => { seen.push(cell); if (seen.length === 1) runner.cancel(); },
    );
    await expect(run).rejects.toBeInstanceOf(ProfileCancelledError);
    expect(seen.length).toBeLessThan(8);
  });
});
