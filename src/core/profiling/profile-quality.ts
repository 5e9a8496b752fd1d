/**
 * How far a profile can be trusted, from what its cells record: the share of the profiled CPUs' time that other
 * processes took while each was measured, and whether a cell stayed above the threshold after its re-measures
 * (flagged). The verdict: "clean" (no cell flagged), "some cells flagged" (at most a quarter), "unreliable" (more),
 * "unknown" (cells from an agent that did not account for interference).
 */
export interface CellQuality {
  threads: number;
  batch: number;
  interferencePct: number | null;
  flagged: boolean;
  remeasured: number;
}

export type ProfileVerdict = "clean" | "some-flagged" | "unreliable" | "unknown";

export interface ProfileQuality {
  verdict: ProfileVerdict;
  flagged: number;
  accounted: number;
  medianInterferencePct: number | null;
  worstInterferencePct: number | null;
  summary: string;
}

export function profileQuality(cells: readonly CellQuality[]): ProfileQuality {
  const accounted = cells.filter((c) => c.interferencePct !== null);
  const flagged = cells.filter((c) => c.flagged).length;
  const shares = accounted.map((c) => c.interferencePct!).sort((a, b) => a - b);
  const median = shares.length
    ? shares.length % 2
      ? shares[(shares.length - 1) / 2]!
      : (shares[shares.length / 2 - 1]! + shares[shares.length / 2]!) / 2
    : null;
  const worst = shares.length ? shares[shares.length - 1]! : null;
  const pct = (x: number) => `${x < 10 ? x.toFixed(1) : x.toFixed(0)}%`;
  if (accounted.length === 0) {
    return {
      verdict: "unknown",
      flagged,
      accounted: 0,
      medianInterferencePct: null,
      worstInterferencePct: null,
      summary: "no interference was recorded for these cells (measured by an older agent)",
    };
  }
  const verdict: ProfileVerdict = flagged === 0 ? "clean" : flagged * 4 <= cells.length ? "some-flagged" : "unreliable";
  const what = `other processes took a median ${pct(median!)} of the profiled CPUs' time (worst cell ${pct(worst!)})`;
  const summary =
    verdict === "clean"
      ? `clean: ${what}`
      : verdict === "some-flagged"
        ? `${flagged} of ${cells.length} cells flagged: ${what}; plans from those cells are marked`
        : `unreliable: ${flagged} of ${cells.length} cells flagged, ${what}; profile again on free CPUs or a quieter host`;
  return {
    verdict,
    flagged,
    accounted: accounted.length,
    medianInterferencePct: median,
    worstInterferencePct: worst,
    summary,
  };
}

/** The flagged cells a plan runs on (its instances' ⟨t, b⟩). */
export function flaggedCellsOfPlan(
  instances: ReadonlyArray<{ threads: number; batch: number }>,
  cells: readonly CellQuality[],
): CellQuality[] {
  return cells.filter((c) => c.flagged && instances.some((i) => i.threads === c.threads && i.batch === c.batch));
}
