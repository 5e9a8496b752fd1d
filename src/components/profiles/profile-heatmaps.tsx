"use client";
// The profile's two heatmaps over ⟨t, b⟩: mean batch latency (log colour scale: latency grows about linearly with b,
// so a linear scale would paint every small batch the same pale colour) and the p99 / mean spread per cell.
import { Heatmap, type HeatmapCellRef } from "@/components/charts/heatmap";
import { sequentialScale, type ColorScale } from "@/components/charts/heatmap-scale";
import { formatFixed, formatMs, formatRate, formatSig } from "@/lib/planning/format";
import { cellKey, indexCells, type GridPoint, type ProfileCellData, type ProfileGrid } from "./profile-grid-data";
import { tailSpread } from "./profile-series-data";

const ascending = (xs: readonly number[]) => [...new Set(xs)].sort((a, b) => a - b);

/** A log scale over the measured means (null until a cell is in). Shared by both sides of a comparison. */
export function latencyScale(...cellSets: ReadonlyArray<readonly ProfileCellData[]>): ColorScale | null {
  const values = cellSets
    .flat()
    .map((c) => c.meanMs)
    .filter((v) => v > 0);
  return values.length ? sequentialScale(values, { log: true, parameter: "meanMs" }) : null;
}

function cellLines(c: ProfileCellData): string[] {
  const spread = tailSpread(c);
  return [
    `mean ${formatMs(c.meanMs)}${c.ciHalfWidthMs !== undefined ? ` ± ${formatMs(c.ciHalfWidthMs, 2)} (95% CI)` : ""}`,
    `p50 ${formatMs(c.p50Ms)} · p90 ${formatMs(c.p90Ms)} · p99 ${formatMs(c.p99Ms)}`,
    `p99 / mean ${spread === null ? "—" : `${formatSig(spread, 3)}×`} · stddev ${formatMs(c.stddevMs)}`,
    `throughput ${formatRate((c.batch / c.meanMs) * 1000, "samples/s", 4)} · ${formatMs(c.meanMs / c.batch)} per sample`,
    `${c.iterations} iterations${c.stopReason ? ` (${c.stopReason})` : ""}`,
  ];
}

export function LatencyHeatmap(props: {
  grid: ProfileGrid;
  cells: readonly ProfileCellData[];
  current?: GridPoint | null;
  active?: boolean;
  scale?: ColorScale | null;
  testId: string;
  maxWidth?: number;
}) {
  const at = indexCells(props.cells);
  const scale = props.scale === undefined ? latencyScale(props.cells) : props.scale;
  const highlight: HeatmapCellRef | null = props.current
    ? { row: props.current.threads, col: props.current.batch }
    : null;
  return (
    <Heatmap
      testId={props.testId}
      rows={ascending(props.grid.threads)}
      cols={ascending(props.grid.batches)}
      value={(t, b) => at.get(cellKey(t, b))?.meanMs ?? null}
      scale={scale}
      maxGridWidth={props.maxWidth}
      xLabel="batch size b (samples per batch)"
      yLabel="intra-op threads t"
      formatRow={(t) => `t = ${t}`}
      formatCell={(v) => formatSig(v, 3)}
      formatLegend={(v) => formatMs(v, 3)}
      legendLabel="Mean batch latency L(t, b), ms (log colour scale)"
      tooltip={(t, b) => {
        const c = at.get(cellKey(t, b));
        const title = `t = ${t} threads, b = ${b}`;
        if (c) return [title, ...cellLines(c)];
        const now = highlight?.row === t && highlight.col === b;
        return [title, now ? "measuring now" : props.active ? "not measured yet" : "not measured"];
      }}
      highlight={highlight}
      highlightLabel="measuring now"
      missingLabel={props.active ? "not measured yet" : "not measured"}
      emptyLegend={props.active ? "The colour scale appears with the first measured cell." : "No cell was measured."}
    />
  );
}

export function SpreadHeatmap(props: {
  grid: ProfileGrid;
  cells: readonly ProfileCellData[];
  active?: boolean;
  testId: string;
  maxWidth?: number;
}) {
  const at = indexCells(props.cells);
  const spreadAt = (t: number, b: number) => {
    const c = at.get(cellKey(t, b));
    return c ? tailSpread(c) : null;
  };
  const values = props.cells.map(tailSpread).filter((v): v is number => v !== null);
  const scale = values.length ? sequentialScale(values, { parameter: "p99/mean" }) : null;
  return (
    <Heatmap
      testId={props.testId}
      rows={ascending(props.grid.threads)}
      cols={ascending(props.grid.batches)}
      value={spreadAt}
      scale={scale}
      maxGridWidth={props.maxWidth}
      xLabel="batch size b (samples per batch)"
      yLabel="intra-op threads t"
      formatRow={(t) => `t = ${t}`}
      formatCell={(v) => `${formatFixed(v, 2)}×`}
      formatLegend={(v) => `${formatFixed(v, 2)}×`}
      legendLabel="p99 ÷ mean latency (1× = no tail)"
      tooltip={(t, b) => {
        const c = at.get(cellKey(t, b));
        const title = `t = ${t} threads, b = ${b}`;
        if (!c) return [title, props.active ? "not measured yet" : "not measured"];
        const s = tailSpread(c);
        return [
          title,
          `p99 / mean = ${formatMs(c.p99Ms)} / ${formatMs(c.meanMs)} = ${s === null ? "—" : `${formatSig(s, 4)}×`}`,
          `stddev ${formatMs(c.stddevMs)} over ${c.iterations} iterations`,
        ];
      }}
      missingLabel={props.active ? "not measured yet" : "not measured"}
      emptyLegend={props.active ? "The colour scale appears with the first measured cell." : "No cell was measured."}
    />
  );
}
