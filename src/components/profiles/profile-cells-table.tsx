"use client";
// Every measured cell with its exact statistics, in the grid's order; missing cells are named above the table.
import { formatFixed, formatMs, formatSig } from "@/lib/planning/format";
import type { ProfileCellData } from "./profile-grid-data";
import { tailSpread } from "./profile-series-data";

const mib = (bytes: number | null | undefined) =>
  bytes === null || bytes === undefined ? "—" : `${formatFixed(bytes / 2 ** 20, 1)} MiB`;

function qualityText(c: ProfileCellData) {
  if (c.interferencePct === null || c.interferencePct === undefined) return <span className="muted">not recorded</span>;
  const share = `others ${formatFixed(c.interferencePct, c.interferencePct < 10 ? 1 : 0)}%`;
  const again = c.remeasured ? ` · measured ${c.remeasured + 1}×` : "";
  return c.flagged ? (
    <span className="bad">
      ⚠ flagged · {share}
      {again}
    </span>
  ) : (
    <span className="ok">
      {share}
      {again}
    </span>
  );
}

export function ProfileCellsTable({ cells, testId }: { cells: readonly ProfileCellData[]; testId: string }) {
  const sorted = [...cells].sort((a, b) => a.threads - b.threads || a.batch - b.batch);
  return (
    <div className="table-wrap">
      <table className="data profile-cells" data-testid={testId}>
        <thead>
          <tr>
            <th className="num">t</th>
            <th className="num">b</th>
            <th className="num">mean</th>
            <th className="num">± 95% CI</th>
            <th className="num">p50</th>
            <th className="num">p90</th>
            <th className="num">p99</th>
            <th className="num">p99 / mean</th>
            <th className="num">stddev</th>
            <th className="num">iterations</th>
            <th className="num">peak RSS</th>
            <th title="Share of the profiled CPUs' time other processes took while the cell was measured">quality</th>
          </tr>
        </thead>
        <tbody>
          {sorted.map((c) => {
            const spread = tailSpread(c);
            return (
              <tr key={`${c.threads}x${c.batch}`} data-cell={`${c.threads}x${c.batch}`}>
                <td className="num">{c.threads}</td>
                <td className="num">{c.batch}</td>
                <td className="num">{formatMs(c.meanMs)}</td>
                <td
                  className="num"
                  title={c.rounds ? `over ${c.rounds} interleaved rounds (trimmed mean of round means)` : undefined}
                >
                  {c.ciHalfWidthMs === undefined ? "—" : formatMs(c.ciHalfWidthMs, 2)}
                </td>
                <td className="num">{formatMs(c.p50Ms)}</td>
                <td className="num">{formatMs(c.p90Ms)}</td>
                <td className="num">{formatMs(c.p99Ms)}</td>
                <td className="num">{spread === null ? "—" : `${formatSig(spread, 3)}×`}</td>
                <td className="num">{formatMs(c.stddevMs, 3)}</td>
                <td className="num" title={c.stopReason ? `stopped: ${c.stopReason}` : undefined}>
                  {c.iterations}
                  {c.stopReason ? <span className="muted small"> · {c.stopReason}</span> : null}
                </td>
                <td className="num">{mib(c.peakRssBytes)}</td>
                <td className="small" data-testid="cell-quality">
                  {qualityText(c)}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
