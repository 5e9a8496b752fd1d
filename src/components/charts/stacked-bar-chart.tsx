"use client";
import { niceTicks } from "@/lib/planning/axis";
import {
  Bar,
  BarChart,
  CartesianGrid,
  LabelList,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

/** Legend text in the body colour: pale series colours (a "free" segment) stay readable. */
const legendText = (value: unknown) => <span style={{ color: "#1c2330" }}>{String(value)}</span>;

export interface BarSegment {
  key: string;
  label: string;
  color: string;
}

export interface BarReference {
  value: number;
  label: string;
  color: string;
}

/**
 * Horizontal bars, each a stack of segments (a latency budget's stages, a device's memory), against reference lines
 * (a deadline, the device size). Rows and segments are precomputed; this only draws them.
 */
export function StackedBarChart({
  rows,
  categoryKey,
  segments,
  valueLabel,
  references = [],
  domainMax,
  height = 180,
  formatValue,
  showTotals = false,
  categoryWidth = 56,
  legend = true,
}: {
  rows: Record<string, number | string>[];
  categoryKey: string;
  segments: readonly BarSegment[];
  /** The value axis' title with its unit, e.g. "latency (ms)". */
  valueLabel: string;
  references?: readonly BarReference[];
  domainMax?: number;
  height?: number;
  formatValue: (value: number) => string;
  /** Print each bar's total at its end. */
  showTotals?: boolean;
  categoryWidth?: number;
  /** A single-segment bar needs no legend. */
  legend?: boolean;
}) {
  const last = segments[segments.length - 1];
  const totals = rows.map((r) =>
    segments.reduce((sum, seg) => sum + (typeof r[seg.key] === "number" ? (r[seg.key] as number) : 0), 0),
  );
  const scale = niceTicks(domainMax ?? Math.max(0, ...totals, ...references.map((r) => r.value)));
  const top = domainMax ?? scale.top;
  return (
    <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 720, height }}>
      <BarChart
        data={rows}
        layout="vertical"
        margin={{ top: 20, right: 64, bottom: legend ? 8 : 22, left: 8 }}
        barCategoryGap="22%"
      >
        <CartesianGrid strokeDasharray="3 3" horizontal={false} />
        <XAxis
          type="number"
          domain={[0, top]}
          ticks={scale.ticks.filter((t) => t <= top * (1 + 1e-9))}
          allowDataOverflow
          tickFormatter={(v: number) => formatValue(v)}
          label={{ value: valueLabel, position: "insideBottom", offset: -14 }}
        />
        <YAxis type="category" dataKey={categoryKey} width={categoryWidth} tick={{ fontSize: 13 }} />
        <Tooltip formatter={(value) => (typeof value === "number" ? formatValue(value) : String(value))} />
        {legend && (
          <Legend verticalAlign="bottom" itemSorter={null} formatter={legendText} wrapperStyle={{ paddingTop: 18 }} />
        )}
        {segments.map((s) => (
          <Bar key={s.key} dataKey={s.key} name={s.label} stackId="stack" fill={s.color} isAnimationActive={false}>
            {showTotals && s === last && (
              <LabelList
                position="right"
                fill="#1c2330"
                fontSize={12}
                valueAccessor={(entry) => {
                  const p = (entry.payload ?? {}) as Record<string, unknown>;
                  return formatValue(
                    segments.reduce(
                      (sum, seg) => sum + (typeof p[seg.key] === "number" ? (p[seg.key] as number) : 0),
                      0,
                    ),
                  );
                }}
              />
            )}
          </Bar>
        ))}
        {references.map((r) => (
          <ReferenceLine
            key={r.label}
            x={r.value}
            stroke={r.color}
            strokeWidth={2}
            strokeDasharray="6 3"
            ifOverflow="extendDomain"
            label={{ value: r.label, position: "top", fill: r.color, fontSize: 12 }}
          />
        ))}
      </BarChart>
    </ResponsiveContainer>
  );
}
