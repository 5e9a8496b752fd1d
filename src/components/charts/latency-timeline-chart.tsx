"use client";
// Per-minute p50/p99 latency (left axis) and request rate (right axis) of one deployment.
import { CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";

export interface TimelinePoint {
  minute: string;
  p50Ms: number | null;
  p99Ms: number | null;
  ratePerS: number;
}

export function LatencyTimelineChart({ points }: { points: TimelinePoint[] }) {
  if (points.length === 0)
    return <p className="muted">No traffic in the last hour: the chart fills in as heartbeats report requests.</p>;
  // Minutes are few right after a deploy: dots keep single points visible (a line needs two).
  const dots = points.length < 20;
  return (
    <div style={{ width: "100%", height: 260 }} data-testid="latency-timeline">
      <ResponsiveContainer>
        <LineChart data={points} margin={{ top: 10, right: 20, bottom: 24, left: 10 }}>
          <CartesianGrid stroke="#e5e8ee" />
          <XAxis
            dataKey="minute"
            tick={{ fontSize: 12 }}
            label={{ value: "time (UTC, per minute)", position: "insideBottom", offset: -14, fontSize: 12 }}
          />
          <YAxis
            yAxisId="ms"
            tick={{ fontSize: 12 }}
            label={{ value: "latency (ms)", angle: -90, position: "insideLeft", fontSize: 12 }}
          />
          <YAxis
            yAxisId="rate"
            orientation="right"
            tick={{ fontSize: 12 }}
            label={{ value: "requests/s", angle: 90, position: "insideRight", fontSize: 12 }}
          />
          <Tooltip />
          <Legend verticalAlign="top" height={24} />
          <Line
            yAxisId="ms"
            type="linear"
            dataKey="p50Ms"
            name="p50 (ms)"
            stroke="#2f6fed"
            dot={dots}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            yAxisId="ms"
            type="linear"
            dataKey="p99Ms"
            name="p99 (ms)"
            stroke="#d64545"
            dot={dots}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            yAxisId="rate"
            type="linear"
            dataKey="ratePerS"
            name="rate (req/s)"
            stroke="#1f9d55"
            strokeDasharray="4 3"
            dot={dots}
            isAnimationActive={false}
          />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
