"use client";
import { niceTicks } from "@/lib/planning/axis";
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceDot,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";

export type AxisSide = "left" | "right";

/** A curve over the chart's rows (or its own rows), drawn as a line or a staircase. */
/** Legend text in the body colour: pale series colours (a "free" segment) stay readable. */
const legendText = (value: unknown) => <span style={{ color: "#1c2330" }}>{String(value)}</span>;

export interface XYLine {
  key: string;
  label: string;
  color: string;
  axis?: AxisSide;
  dashed?: boolean;
  /** "step" draws a staircase (each point's y holds until the next point's x). */
  shape?: "line" | "step";
  /** Rows of its own, e.g. only the frontier points; default the chart's rows. */
  data?: readonly Record<string, number>[];
  /** Draw a dot at each point. */
  dots?: boolean;
  width?: number;
}

/** Points drawn as markers (dominated candidates, measured points). */
export interface XYPoints {
  key: string;
  label: string;
  color: string;
  points: readonly { x: number; y: number }[];
  axis?: AxisSide;
  opacity?: number;
  shape?: "circle" | "diamond" | "square" | "triangle" | "star" | "cross";
  /** Marker area in px². */
  size?: number;
}

export interface XYReference {
  axis: "x" | "y";
  value: number;
  label: string;
  color: string;
  /** For a y reference: which y axis it belongs to. */
  yAxis?: AxisSide;
  labelPosition?:
    | "top"
    | "insideTopRight"
    | "insideTopLeft"
    | "insideBottomRight"
    | "insideBottomLeft"
    | "right"
    | "left"
    | "insideTop";
}

export interface XYMarker {
  x: number;
  y: number;
  label: string;
  color: string;
  yAxis?: AxisSide;
  /** Radius in px. */
  r?: number;
  labelPosition?: "top" | "left" | "right" | "bottom";
}

export interface XYChartProps {
  rows?: readonly Record<string, number>[];
  xKey: string;
  xLabel: string;
  yLabel: string;
  yRightLabel?: string;
  xScale?: "linear" | "log";
  xDomain?: [number, number];
  xTicks?: number[];
  yDomain?: [number, number];
  yRightDomain?: [number, number];
  lines?: readonly XYLine[];
  points?: readonly XYPoints[];
  references?: readonly XYReference[];
  markers?: readonly XYMarker[];
  height?: number;
  formatX: (v: number) => string;
  formatY: (v: number) => string;
  formatYRight?: (v: number) => string;
}

const axisId = (side: AxisSide | undefined) => side ?? "left";

/** The largest value drawn on one y axis: its lines, points, reference lines and markers. */
function axisMax(props: XYChartProps, side: AxisSide): number {
  let max = 0;
  const take = (v: unknown) => {
    if (typeof v === "number" && Number.isFinite(v) && v > max) max = v;
  };
  for (const l of props.lines ?? []) {
    if (axisId(l.axis) !== side) continue;
    for (const row of l.data ?? props.rows ?? []) take(row[l.key]);
  }
  for (const p of props.points ?? []) if (axisId(p.axis) === side) p.points.forEach((pt) => take(pt.y));
  for (const r of props.references ?? []) if (r.axis === "y" && axisId(r.yAxis) === side) take(r.value);
  for (const m of props.markers ?? []) if (axisId(m.yAxis) === side) take(m.y);
  return max;
}

/** Round ticks from 0: for a given domain, those inside it; otherwise the domain grows to the next round top. */
function yAxisScale(
  props: XYChartProps,
  side: AxisSide,
  domain: [number, number] | undefined,
): { domain: [number, number]; ticks: number[] } {
  if (domain) return { domain, ticks: niceTicks(domain[1]).ticks.filter((t) => t <= domain[1] * (1 + 1e-9)) };
  const t = niceTicks(axisMax(props, side));
  return { domain: [0, t.top], ticks: t.ticks };
}

/** A numeric x–y chart of precomputed series: curves, staircases, markers and reference lines, one or two y axes. */
export function XYChart(props: XYChartProps) {
  const { rows = [], xKey, lines = [], points = [], references = [], markers = [], height = 320 } = props;
  const hasRight = props.yRightLabel !== undefined;
  const left = yAxisScale(props, "left", props.yDomain);
  const right = yAxisScale(props, "right", props.yRightDomain);
  return (
    <ResponsiveContainer width="100%" height={height} initialDimension={{ width: 720, height }}>
      <ComposedChart
        data={rows as Record<string, number>[]}
        margin={{ top: 12, right: hasRight ? 12 : 28, bottom: 30, left: 12 }}
      >
        <CartesianGrid strokeDasharray="3 3" />
        <XAxis
          dataKey={xKey}
          type="number"
          scale={props.xScale ?? "linear"}
          domain={props.xDomain ?? ["auto", "auto"]}
          allowDataOverflow={props.xDomain !== undefined}
          ticks={props.xTicks}
          tickFormatter={(v: number) => props.formatX(v)}
          label={{ value: props.xLabel, position: "insideBottom", offset: -18 }}
        />
        <YAxis
          yAxisId="left"
          domain={left.domain}
          ticks={left.ticks}
          allowDataOverflow
          tickFormatter={(v: number) => props.formatY(v)}
          width={80}
          label={{
            value: props.yLabel,
            angle: -90,
            position: "insideLeft",
            style: { textAnchor: "middle" },
            offset: 4,
          }}
        />
        {hasRight && (
          <YAxis
            yAxisId="right"
            orientation="right"
            domain={right.domain}
            ticks={right.ticks}
            allowDataOverflow
            tickFormatter={(v: number) => (props.formatYRight ?? props.formatY)(v)}
            width={80}
            label={{
              value: props.yRightLabel,
              angle: 90,
              position: "insideRight",
              style: { textAnchor: "middle" },
              offset: 4,
            }}
          />
        )}
        <Tooltip
          labelFormatter={(v) => (typeof v === "number" ? `${props.formatX(v)}` : String(v))}
          formatter={(value, _name, item) => {
            if (typeof value !== "number") return String(value);
            const right = (item as { yAxisId?: string } | undefined)?.yAxisId === "right";
            return right ? (props.formatYRight ?? props.formatY)(value) : props.formatY(value);
          }}
        />
        {/* No fixed height: Recharts measures the legend, so many series wrap onto more lines above the plot, not over it. */}
        <Legend verticalAlign="top" itemSorter={null} formatter={legendText} wrapperStyle={{ paddingBottom: 8 }} />
        {lines.map((l) => (
          <Line
            key={l.key}
            data={l.data as Record<string, number>[] | undefined}
            dataKey={l.key}
            name={l.label}
            yAxisId={axisId(l.axis)}
            type={l.shape === "step" ? "stepAfter" : "linear"}
            stroke={l.color}
            strokeWidth={l.width ?? 2}
            strokeDasharray={l.dashed ? "6 4" : undefined}
            dot={l.dots ? { r: 3, fill: l.color } : false}
            activeDot={l.dots ? { r: 5 } : false}
            isAnimationActive={false}
            connectNulls
          />
        ))}
        {points.map((p) => (
          <Scatter
            key={p.key}
            name={p.label}
            yAxisId={axisId(p.axis)}
            data={p.points.map((pt) => ({ [xKey]: pt.x, [p.key]: pt.y }))}
            dataKey={p.key}
            fill={p.color}
            fillOpacity={p.opacity ?? 1}
            shape={p.shape ?? "circle"}
            isAnimationActive={false}
          />
        ))}
        {references.map((r) =>
          r.axis === "x" ? (
            <ReferenceLine
              key={`x-${r.label}`}
              x={r.value}
              yAxisId="left"
              stroke={r.color}
              strokeWidth={1.5}
              strokeDasharray="6 3"
              label={{ value: r.label, position: r.labelPosition ?? "insideTopRight", fill: r.color, fontSize: 12 }}
            />
          ) : (
            <ReferenceLine
              key={`y-${r.label}`}
              y={r.value}
              yAxisId={axisId(r.yAxis)}
              stroke={r.color}
              strokeWidth={1.5}
              strokeDasharray="6 3"
              label={{ value: r.label, position: r.labelPosition ?? "insideTopLeft", fill: r.color, fontSize: 12 }}
            />
          ),
        )}
        {markers.map((m) => (
          <ReferenceDot
            key={`m-${m.label}`}
            x={m.x}
            y={m.y}
            yAxisId={axisId(m.yAxis)}
            r={m.r ?? 7}
            fill={m.color}
            stroke="#fff"
            strokeWidth={2}
            label={{ value: m.label, position: m.labelPosition ?? "top", fill: m.color, fontSize: 12, fontWeight: 600 }}
          />
        ))}
      </ComposedChart>
    </ResponsiveContainer>
  );
}
