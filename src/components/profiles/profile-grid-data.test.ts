import { describe, expect, it } from "vitest";
import {
  CUT_SHORT_WAIT_MS,
  currentCell,
  describeCells,
  formatDuration,
  isSettling,
  missingCells,
  progressView,
} from "./profile-grid-data";

const grid = { threads: [1, 2], batches: [1, 2, 4] };
const p = (threads: number, batch: number) => ({ threads, batch });

describe("missing and current cells", () => {
  it("missing cells come in the agent's order: t ascending, then b ascending", () => {
    // 2 × 3 = 6 cells; measured t=1 b=1 and t=1 b=4 → missing t=1 b=2, then all of t=2.
    expect(missingCells(grid, [p(1, 1), p(1, 4)])).toEqual([p(1, 2), p(2, 1), p(2, 2), p(2, 4)]);
  });

  it("the current cell is the first missing one, only while running", () => {
    expect(currentCell(grid, [p(1, 1), p(1, 2), p(1, 4)], "running")).toEqual(p(2, 1));
    expect(currentCell(grid, [p(1, 1)], "queued")).toBeNull();
    expect(currentCell(grid, [p(1, 1)], "cancelled")).toBeNull();
  });

  it("names at most `limit` cells, then counts the rest", () => {
    expect(describeCells([p(1, 2), p(2, 1), p(2, 2)], 2)).toBe("t=1, b=2; t=2, b=1 and 1 more");
  });
});

describe("progress line", () => {
  it("running, 3 of 6 measured → 50%, measuring t=2 b=1, ETA from the server", () => {
    const v = progressView({ status: "running", grid, cells: [p(1, 1), p(1, 2), p(1, 4)], etaMs: 75_000 });
    expect(v).toMatchObject({ done: 3, total: 6, percent: 50, current: p(2, 1), missingNote: null });
    expect(v.headline).toBe("Measuring t=2, b=1: 3 of 6 cells measured, about 1 min 15 s left.");
  });

  it("floors the percent, so 100% means every cell: 5 of 6 = 83.3% → 83", () => {
    const v = progressView({
      status: "running",
      grid,
      cells: [p(1, 1), p(1, 2), p(1, 4), p(2, 1), p(2, 2)],
      etaMs: null,
    });
    expect(v.percent).toBe(83);
    expect(v.headline).toContain("time left known after the first cell");
  });

  it("complete: 100% and no missing note", () => {
    const all = [p(1, 1), p(1, 2), p(1, 4), p(2, 1), p(2, 2), p(2, 4)];
    const v = progressView({ status: "complete", grid, cells: all, etaMs: null });
    expect(v).toMatchObject({
      percent: 100,
      tone: "ok",
      missingNote: null,
      headline: "Complete: all 6 cells measured.",
    });
  });

  it("partial after a failure names what is missing and that the optimizer will not use it", () => {
    const v = progressView({ status: "partial", grid, cells: [p(1, 1), p(1, 2)], etaMs: null, jobError: "agent lost" });
    expect(v.headline).toBe("Partial: the job ended with 2 of 6 cells measured (agent lost).");
    expect(v.missingNote).toBe(
      "Missing 4 cells: t=1, b=4; t=2, b=1; t=2, b=2; t=2, b=4. The views show the cells that exist; the optimizer plans from complete profiles only.",
    );
    expect(v.tone).toBe("bad");
  });

  it("failed before any cell says so", () => {
    const v = progressView({ status: "failed", grid, cells: [], etaMs: null, jobError: "the model failed to load" });
    expect(v.headline).toBe("Failed: the model failed to load (0 of 6 cells measured).");
    // Nothing measured: the note still lists every one of the 2 × 3 = 6 missing cells.
    expect(v.missingNote).toBe(
      "No cell was measured (cells are measured in interleaved rounds, so most finish only near the end). Missing 6 cells: t=1, b=1; t=1, b=2; t=1, b=4; t=2, b=1; t=2, b=2; t=2, b=4. The views show the cells that exist; the optimizer plans from complete profiles only.",
    );
  });
});

describe("a cancelled job's cut-short cells", () => {
  const cut = (threads: number, batch: number, rounds: number) => ({ threads, batch, stopReason: "cancelled", rounds });

  it("counts them, says on how many rounds they rest, and lists what is still missing", () => {
    // 2 of the 6 cells had finished; 3 were cut short after 3 or 4 rounds; t=2, b=4 had fewer than 2 rounds (none kept).
    const v = progressView({
      status: "cancelled",
      grid,
      cells: [p(1, 1), p(1, 2), cut(1, 4, 4), cut(2, 1, 3), cut(2, 2, 3)],
      etaMs: null,
    });
    expect(v.headline).toBe("Cancelled with 5 of 6 cells measured, 3 cut short by the cancel.");
    expect(v.missingNote).toBe(
      "3 cells were cut short by the cancel: their estimates rest on 3–4 rounds, fewer than the rule asks. Missing 1 cell: t=2, b=4. The views show the cells that exist; the optimizer plans from complete profiles only.",
    );
  });

  it("all cut short: nothing missing, and the note still says what the cells rest on", () => {
    const all = grid.threads.flatMap((t) => grid.batches.map((b) => cut(t, b, 2)));
    const v = progressView({ status: "cancelled", grid, cells: all, etaMs: null });
    expect(v.headline).toBe("Cancelled with 6 of 6 cells measured, all cut short by the cancel.");
    expect(v.missingNote).toBe(
      "6 cells were cut short by the cancel: their estimates rest on 2 rounds, fewer than the rule asks. The views show the cells that exist; the optimizer plans from complete profiles only.",
    );
  });

  it("the page keeps polling a job cancelled moments ago (the agent hands its cut-short cells in), then stops", () => {
    const finishedAt = new Date(1_000_000);
    expect(isSettling("running", null)).toBe(true);
    expect(isSettling("cancelled", finishedAt, 1_000_000 + CUT_SHORT_WAIT_MS - 1)).toBe(true);
    expect(isSettling("cancelled", finishedAt, 1_000_000 + CUT_SHORT_WAIT_MS)).toBe(false);
    expect(isSettling("complete", finishedAt, 1_000_001)).toBe(false);
  });
});

describe("durations", () => {
  it("reads as s, min s, h min; never NaN", () => {
    expect(formatDuration(45_400)).toBe("45 s");
    expect(formatDuration(125_000)).toBe("2 min 5 s");
    expect(formatDuration(120_000)).toBe("2 min");
    // 4,800 s = 1 h + 1,200 s = 1 h 20 min.
    expect(formatDuration(4_800_000)).toBe("1 h 20 min");
    expect(formatDuration(200)).toBe("< 1 s");
    expect(formatDuration(Number.NaN)).toBe("—");
    expect(formatDuration(null)).toBe("—");
  });
});
