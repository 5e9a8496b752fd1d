import { describe, expect, it } from "vitest";
import { flaggedCellsOfPlan, profileQuality, type CellQuality } from "./profile-quality";

const cell = (threads: number, batch: number, interferencePct: number | null, flagged = false): CellQuality => ({
  threads,
  batch,
  interferencePct,
  flagged,
  remeasured: flagged ? 1 : 0,
});

describe("profile quality", () => {
  it("clean when no cell is flagged; median and worst of the interference shares", () => {
    // Shares 1, 2, 3, 8: median (2 + 3) / 2 = 2.5, worst 8.
    const q = profileQuality([cell(1, 1, 1), cell(1, 2, 8), cell(2, 1, 3), cell(2, 2, 2)]);
    expect(q).toMatchObject({
      verdict: "clean",
      flagged: 0,
      accounted: 4,
      medianInterferencePct: 2.5,
      worstInterferencePct: 8,
    });
    expect(q.summary).toBe("clean: other processes took a median 2.5% of the profiled CPUs' time (worst cell 8.0%)");
  });

  it("a quarter flagged is 'some', more is unreliable", () => {
    const some = profileQuality([cell(1, 1, 1), cell(1, 2, 40, true), cell(2, 1, 3), cell(2, 2, 2)]);
    expect(some.verdict).toBe("some-flagged");
    const bad = profileQuality([cell(1, 1, 30, true), cell(1, 2, 40, true), cell(2, 1, 3), cell(2, 2, 2)]);
    expect(bad.verdict).toBe("unreliable");
    expect(bad.summary).toMatch(/^unreliable: 2 of 4 cells flagged/);
  });

  it("unknown without any accounting", () => {
    expect(profileQuality([cell(1, 1, null)]).verdict).toBe("unknown");
  });

  it("names the flagged cells a plan runs on", () => {
    const cells = [cell(1, 1, 30, true), cell(1, 2, 40, true), cell(2, 1, 3)];
    expect(
      flaggedCellsOfPlan(
        [
          { threads: 1, batch: 2 },
          { threads: 2, batch: 1 },
        ],
        cells,
      ).map((c) => `${c.threads}x${c.batch}`),
    ).toEqual(["1x2"]);
  });
});
