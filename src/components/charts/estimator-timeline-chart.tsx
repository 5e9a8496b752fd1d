"use client";
// The batch-size estimator's decisions (Packrat §3.8): the sampled mean queue depth Q̂ per interval, its EWMA Q̃,
// the estimate B̂ (power of two at or below Q̃), the stable B̃ (mode of the last estimates), the running B, the
// decisions where a trigger held (triangles on the time axis) and the proposals (vertical lines).
import {
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { timeTicks, type TimelinePoint } from "@/components/estimator/estimator-timeline-data";

export function EstimatorTimelineChart({ points, height = 280 }: { points: TimelinePoint[]; height?: number }) {
  if (points.length === 0)
    return (
      <p className="muted" data-testid="estimator-timeline-empty">
        No estimator decisions reported yet: the agent reports them on every heartbeat once the model serves.
      </p>
    );
  const proposals = points.filter((p) => p.proposed !== null);
  const dots = points.length < 15;
  return (
    <div style={{ width: "100%", height }} data-testid="estimator-timeline">
      <ResponsiveContainer>
        <ComposedChart data={points} margin={{ top: 10, right: 24, bottom: 24, left: 10 }}>
          <CartesianGrid stroke="#e5e8ee" />
          <XAxis
            dataKey="t"
            type="number"
            domain={[points[0]!.t, 0]}
            ticks={timeTicks(points[0]!.t)}
            tick={{ fontSize: 12 }}
            tickFormatter={(v: number) => `${v} s`}
            label={{ value: "time before the latest decision", position: "insideBottom", offset: -14, fontSize: 12 }}
          />
          <YAxis
            tick={{ fontSize: 12 }}
            allowDecimals={false}
            label={{
              value: "rows (queue depth, batch size)",
              angle: -90,
              position: "insideLeft",
              offset: 4,
              fontSize: 12,
              style: { textAnchor: "middle" },
            }}
          />
          <Tooltip labelFormatter={(v) => `${v} s`} />
          <Legend verticalAlign="top" height={28} />
          <Line
            type="linear"
            dataKey="qHat"
            name="Q̂ sampled mean depth"
            stroke="#9aa5b8"
            strokeWidth={1}
            dot={dots}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            type="linear"
            dataKey="qTilde"
            name="Q̃ EWMA"
            stroke="#2f6fed"
            strokeWidth={2}
            dot={dots}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            type="stepAfter"
            dataKey="estimate"
            name="B̂ estimate"
            stroke="#c77700"
            strokeDasharray="4 3"
            dot={false}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            type="stepAfter"
            dataKey="stable"
            name="B̃ stable"
            stroke="#7b3fc4"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            type="stepAfter"
            dataKey="current"
            name="B running"
            stroke="#1f9d55"
            strokeWidth={2}
            dot={false}
            isAnimationActive={false}
          />
          <Scatter dataKey="trigger" name="trigger holds" fill="#d64545" shape="triangle" isAnimationActive={false} />
          {proposals.map((p) => (
            <ReferenceLine
              key={p.t}
              x={p.t}
              stroke="#d64545"
              strokeDasharray="2 2"
              label={{ value: `proposed ${p.proposed}`, position: "insideTopRight", fontSize: 11, fill: "#d64545" }}
            />
          ))}
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
