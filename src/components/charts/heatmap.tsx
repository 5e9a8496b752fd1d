"use client";
// A heatmap as an SVG grid (Recharts has none): rows × columns of cells coloured on a scale, axis labels with
// units, a colour legend, hatched cells where there is no value, an optional highlighted cell, and a tooltip with
// exact values on hover or keyboard focus. Drawn at its natural pixel size so text stays crisp; wide grids scroll.
import { useId, useState, type CSSProperties } from "react";
import { legendTicks, type ColorScale } from "./heatmap-scale";

export interface HeatmapCellRef {
  row: number;
  col: number;
}

export interface HeatmapProps {
  /** Row values, drawn top to bottom in this order (e.g. threads t). */
  rows: readonly number[];
  /** Column values, left to right (e.g. batch sizes b). */
  cols: readonly number[];
  value: (row: number, col: number) => number | null;
  /** Null when no cell has a value yet: every cell is drawn as missing and the legend says why. */
  scale: ColorScale | null;
  xLabel: string;
  yLabel: string;
  formatRow?: (v: number) => string;
  formatCol?: (v: number) => string;
  /** Short text inside a cell. */
  formatCell: (v: number) => string;
  /** Legend tick labels. */
  formatLegend: (v: number) => string;
  legendLabel: string;
  /** Tooltip lines for a cell (exact values, or why it has none). */
  tooltip: (row: number, col: number) => string[];
  highlight?: HeatmapCellRef | null;
  highlightLabel?: string;
  missingLabel?: string;
  /** When no cell has a value. */
  emptyLegend?: string;
  testId: string;
  /** Width budget of the grid in px (cells shrink to fit it, down to 46 px); default 640. */
  maxGridWidth?: number;
}

const MARGIN = { left: 74, top: 8, right: 16, bottom: 46 };
const LEGEND_WIDTH = 340;
const LEGEND_HEIGHT = 64;
const TOOLTIP: CSSProperties = {
  position: "absolute",
  transform: "translate(-50%, calc(-100% - 6px))",
  pointerEvents: "none",
  zIndex: 5,
  background: "#fff",
  border: "1px solid #dfe3ea",
  borderRadius: 6,
  padding: "6px 10px",
  fontSize: 12.5,
  lineHeight: 1.45,
  boxShadow: "0 4px 14px rgba(21, 27, 38, 0.12)",
  whiteSpace: "nowrap",
  color: "#1c2330",
  fontVariantNumeric: "tabular-nums",
};

export function Heatmap(props: HeatmapProps) {
  const { rows, cols, value, scale } = props;
  const patternId = `hatch-${useId().replace(/[^a-zA-Z0-9_-]/g, "")}`;
  const [hover, setHover] = useState<(HeatmapCellRef & { x: number; y: number }) | null>(null);
  const cellW = Math.max(46, Math.min(110, Math.floor((props.maxGridWidth ?? 640) / Math.max(1, cols.length))));
  const cellH = Math.max(22, Math.min(44, Math.floor(360 / Math.max(1, rows.length))));
  const gridW = cols.length * cellW;
  const gridH = rows.length * cellH;
  // The rotated y label is centred on the grid: a short grid gets room above it so the label is never clipped
  // (about 6.5 px per character at 12 px).
  const top = Math.max(MARGIN.top, Math.ceil((props.yLabel.length * 6.5 - gridH) / 2) + 4);
  const legendX = MARGIN.left;
  const barW = Math.min(LEGEND_WIDTH, Math.max(240, gridW));
  // About 110 px per tick label ("0.0763 ms" is ~55 px at 11 px): 3 ticks on a 240 px bar, 4 on 330+.
  const tickCount = Math.max(2, Math.min(5, Math.floor(barW / 110) + 1));
  // Room for the legend's bar, its end labels and the "missing / highlighted" keys beside it.
  const width = Math.max(MARGIN.left + gridW + MARGIN.right, legendX + barW + 190);
  const legendTop = top + gridH + MARGIN.bottom + 6;
  const height = legendTop + LEGEND_HEIGHT;
  const formatRow = props.formatRow ?? String;
  const formatCol = props.formatCol ?? String;
  const showText = cellW >= 46 && cellH >= 20;
  const hasMissing = rows.some((r) => cols.some((c) => value(r, c) === null));

  return (
    <div className="heatmap" data-testid={props.testId} style={{ position: "relative" }}>
      <div style={{ overflowX: "auto", maxWidth: "100%" }}>
        <svg
          width={width}
          height={height}
          role="img"
          aria-label={`${props.legendLabel} over ${props.yLabel} × ${props.xLabel}`}
        >
          <defs>
            <pattern id={patternId} width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
              <rect width="6" height="6" fill="#f4f6f9" />
              <line x1="0" y1="0" x2="0" y2="6" stroke="#d5dae3" strokeWidth="2" />
            </pattern>
          </defs>
          {/* y axis: tick labels and the rotated axis label */}
          {rows.map((r, i) => (
            <text
              key={`r-${r}`}
              x={MARGIN.left - 8}
              y={top + i * cellH + cellH / 2}
              textAnchor="end"
              dominantBaseline="central"
              fontSize={12}
              fill="#1c2330"
            >
              {formatRow(r)}
            </text>
          ))}
          <text
            x={14}
            y={top + gridH / 2}
            transform={`rotate(-90 14 ${top + gridH / 2})`}
            textAnchor="middle"
            dominantBaseline="central"
            fontSize={12}
            fill="#5b6576"
          >
            {props.yLabel}
          </text>
          {/* x axis */}
          {cols.map((c, j) => (
            <text
              key={`c-${c}`}
              x={MARGIN.left + j * cellW + cellW / 2}
              y={top + gridH + 16}
              textAnchor="middle"
              fontSize={12}
              fill="#1c2330"
            >
              {formatCol(c)}
            </text>
          ))}
          <text x={MARGIN.left + gridW / 2} y={top + gridH + 38} textAnchor="middle" fontSize={12} fill="#5b6576">
            {props.xLabel}
          </text>
          {/* cells */}
          {rows.map((r, i) =>
            cols.map((c, j) => {
              const v = value(r, c);
              const x = MARGIN.left + j * cellW;
              const y = top + i * cellH;
              const lit = props.highlight?.row === r && props.highlight?.col === c;
              const lines = props.tooltip(r, c);
              const show = () => setHover({ row: r, col: c, x: x + cellW / 2, y });
              return (
                <g
                  key={`${r}-${c}`}
                  tabIndex={0}
                  role="gridcell"
                  aria-label={lines.join("; ")}
                  data-cell={`${r}x${c}`}
                  data-value={v === null ? "" : String(v)}
                  onMouseEnter={show}
                  onFocus={show}
                  onMouseLeave={() => setHover(null)}
                  onBlur={() => setHover(null)}
                  style={{ outline: "none" }}
                >
                  <rect
                    x={x + 1}
                    y={y + 1}
                    width={cellW - 2}
                    height={cellH - 2}
                    rx={3}
                    fill={v === null || !scale ? `url(#${patternId})` : scale.color(v)}
                  />
                  {lit && (
                    <rect
                      x={x + 2}
                      y={y + 2}
                      width={cellW - 4}
                      height={cellH - 4}
                      rx={3}
                      fill="none"
                      stroke="#c77700"
                      strokeWidth={2}
                      strokeDasharray="4 3"
                    />
                  )}
                  {showText && v !== null && scale && (
                    <text
                      x={x + cellW / 2}
                      y={y + cellH / 2}
                      textAnchor="middle"
                      dominantBaseline="central"
                      fontSize={11}
                      fill={scale.textColor(v)}
                      pointerEvents="none"
                    >
                      {props.formatCell(v)}
                    </text>
                  )}
                  {showText && v === null && lit && (
                    <text
                      x={x + cellW / 2}
                      y={y + cellH / 2}
                      textAnchor="middle"
                      dominantBaseline="central"
                      fontSize={11}
                      fill="#8a5a00"
                      pointerEvents="none"
                    >
                      …
                    </text>
                  )}
                </g>
              );
            }),
          )}
          {/* legend: title, gradient bar with ticks, then the missing / highlighted keys */}
          <g transform={`translate(${legendX}, ${legendTop})`}>
            <text x={0} y={0} dominantBaseline="hanging" fontSize={12} fontWeight={600} fill="#1c2330">
              {props.legendLabel}
            </text>
            {scale ? (
              <>
                <defs>
                  <linearGradient id={`${patternId}-bar`} x1="0" x2="1" y1="0" y2="0">
                    {Array.from({ length: 11 }, (_, k) => (
                      <stop key={k} offset={`${k * 10}%`} stopColor={scale.colorAtPosition(k / 10)} />
                    ))}
                  </linearGradient>
                </defs>
                <rect x={0} y={18} width={barW} height={12} rx={2} fill={`url(#${patternId}-bar)`} stroke="#dfe3ea" />
                {legendTicks(scale, tickCount).map((t, k, all) => (
                  <g key={k} transform={`translate(${t.position * barW}, 0)`}>
                    <line x1={0} x2={0} y1={30} y2={34} stroke="#5b6576" />
                    <text
                      y={46}
                      textAnchor={
                        all.length > 1 && k === 0 ? "start" : all.length > 1 && k === all.length - 1 ? "end" : "middle"
                      }
                      fontSize={11}
                      fill="#1c2330"
                    >
                      {props.formatLegend(t.value)}
                    </text>
                  </g>
                ))}
              </>
            ) : (
              <text x={0} y={30} fontSize={12} fill="#5b6576">
                {props.emptyLegend ?? "No values yet."}
              </text>
            )}
            {(hasMissing || props.highlight) && (
              <g transform={`translate(${barW + 20}, 18)`}>
                {hasMissing && (
                  <>
                    <rect x={0} y={0} width={14} height={12} rx={2} fill={`url(#${patternId})`} stroke="#d5dae3" />
                    <text x={20} y={6} dominantBaseline="central" fontSize={11} fill="#5b6576">
                      {props.missingLabel ?? "no value"}
                    </text>
                  </>
                )}
                {props.highlight && (
                  <>
                    <rect
                      x={0}
                      y={18}
                      width={14}
                      height={12}
                      rx={2}
                      fill="none"
                      stroke="#c77700"
                      strokeWidth={2}
                      strokeDasharray="4 3"
                    />
                    <text x={20} y={24} dominantBaseline="central" fontSize={11} fill="#5b6576">
                      {props.highlightLabel ?? "highlighted"}
                    </text>
                  </>
                )}
              </g>
            )}
          </g>
        </svg>
      </div>
      {hover && (
        <div role="tooltip" data-testid={`${props.testId}-tooltip`} style={{ ...TOOLTIP, left: hover.x, top: hover.y }}>
          {props.tooltip(hover.row, hover.col).map((line, k) => (
            <div key={k} style={k === 0 ? { fontWeight: 600, marginBottom: 2 } : undefined}>
              {line}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
