"use client";
// The load-test page's charts: the latency percentile spectrum (x in "nines", so the tail is as wide as the body),
// the per-second timeline (outcomes as bars, p50/p99 as lines), and a search's steps (p99 per offered rate against
// the limit). Recharts, no animation; every axis says its unit.
import {
  Bar,
  CartesianGrid,
  ComposedChart,
  Legend,
  Line,
  LineChart,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { ninesOf } from "./load-test-form-data";

const SPECTRUM_CAP = 5; // the maximum is drawn at 5 nines (99.999%)
const PERCENT_TICKS = [0, 90, 99, 99.9, 99.99, 100];

/** Tick text at whole nines: 0 → "0%", 1 → "90%", 2 → "99%", 3 → "99.9%"; the cap is the maximum. */
const percentLabel = (nines: number) => {
  if (nines >= SPECTRUM_CAP) return "max";
  return `${(100 * (1 - 10 ** -nines)).toFixed(Math.max(0, Math.round(nines) - 2))}%`;
};
/** Legend text in the body colour: pale series colours stay readable. */
const legendText = (value: unknown) => <span style={{ color: "#1c2330" }}>{String(value)}</span>;

export function SpectrumChart({ spectrum }: { spectrum: Array<{ percentile: number; latencyMs: number }> }) {
  if (spectrum.length === 0) return <p className="muted">No request succeeded: there is no latency to draw.</p>;
  const rows = spectrum.map((s) => ({
    x: ninesOf(s.percentile, SPECTRUM_CAP),
    latencyMs: s.latencyMs,
    percentile: s.percentile,
  }));
  return (
    <div style={{ width: "100%", height: 280 }} data-testid="load-test-spectrum">
      <ResponsiveContainer>
        <LineChart data={rows} margin={{ top: 10, right: 20, bottom: 24, left: 10 }}>
          <CartesianGrid stroke="#e5e8ee" />
          <XAxis
            dataKey="x"
            type="number"
            domain={[0, SPECTRUM_CAP]}
            ticks={PERCENT_TICKS.map((p) => ninesOf(p, SPECTRUM_CAP))}
            tickFormatter={percentLabel}
            tick={{ fontSize: 12 }}
            label={{
              value: "percentile (of successful requests)",
              position: "insideBottom",
              offset: -14,
              fontSize: 12,
            }}
          />
          <YAxis
            tick={{ fontSize: 12 }}
            label={{ value: "latency (ms)", angle: -90, position: "insideLeft", fontSize: 12 }}
          />
          <Tooltip
            labelFormatter={(x) => `p${rows.find((r) => r.x === x)?.percentile ?? percentLabel(Number(x))}`}
            formatter={(v) => [`${Number(v).toFixed(2)} ms`, "latency"]}
          />
          <Line type="linear" dataKey="latencyMs" name="latency (ms)" stroke="#2f6fed" dot isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}

export interface TimelineRow {
  second: number;
  warmup: boolean;
  ok: number;
  errors: number;
  dropped: number;
  p50Ms: number | null;
  p99Ms: number | null;
}

export function TimelineChart({ rows }: { rows: TimelineRow[] }) {
  if (rows.length === 0) return <p className="muted">No second of the run had a request.</p>;
  const warmupEnd = rows.filter((r) => r.warmup).at(-1)?.second;
  // Half a second of room at each end, so the first and last bars sit inside the axes; at most ~15 ticks.
  const first = rows[0]!.second;
  const last = rows.at(-1)!.second;
  const step = Math.max(1, Math.ceil((last - first + 1) / 15));
  const ticks = Array.from({ length: Math.floor((last - first) / step) + 1 }, (_, i) => first + i * step);
  return (
    <div style={{ width: "100%", height: 300 }} data-testid="load-test-timeline">
      <ResponsiveContainer>
        <ComposedChart data={rows} margin={{ top: 10, right: 20, bottom: 24, left: 10 }}>
          <CartesianGrid stroke="#e5e8ee" />
          <XAxis
            dataKey="second"
            type="number"
            domain={[first - 0.5, last + 0.5]}
            ticks={ticks}
            allowDecimals={false}
            tick={{ fontSize: 12 }}
            label={{
              value: "time since start (s, by intended send time)",
              position: "insideBottom",
              offset: -14,
              fontSize: 12,
            }}
          />
          <YAxis
            yAxisId="count"
            tick={{ fontSize: 12 }}
            allowDecimals={false}
            label={{ value: "requests per second", angle: -90, position: "insideLeft", fontSize: 12 }}
          />
          <YAxis
            yAxisId="ms"
            orientation="right"
            tick={{ fontSize: 12 }}
            label={{ value: "latency (ms)", angle: 90, position: "insideRight", fontSize: 12 }}
          />
          <Tooltip />
          <Legend verticalAlign="top" height={24} formatter={legendText} />
          {warmupEnd !== undefined && (
            <ReferenceLine
              yAxisId="count"
              x={warmupEnd + 0.5}
              stroke="#8a94a6"
              strokeDasharray="4 3"
              label={{ value: "warm-up ends", fontSize: 11, position: "insideTopLeft" }}
            />
          )}
          <Bar yAxisId="count" dataKey="ok" name="ok (req/s)" stackId="n" fill="#9cc3a4" isAnimationActive={false} />
          <Bar
            yAxisId="count"
            dataKey="errors"
            name="errors (req/s)"
            stackId="n"
            fill="#d64545"
            isAnimationActive={false}
          />
          <Bar
            yAxisId="count"
            dataKey="dropped"
            name="dropped (req/s)"
            stackId="n"
            fill="#e0a030"
            isAnimationActive={false}
          />
          <Line
            yAxisId="ms"
            type="linear"
            dataKey="p50Ms"
            name="p50 (ms)"
            stroke="#2f6fed"
            dot={rows.length < 30}
            isAnimationActive={false}
            connectNulls
          />
          <Line
            yAxisId="ms"
            type="linear"
            dataKey="p99Ms"
            name="p99 (ms)"
            stroke="#7a2fd0"
            dot={rows.length < 30}
            isAnimationActive={false}
            connectNulls
          />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}

/** The next 1, 2 or 5 × 10^k at or above x: an axis top that reads well and keeps the limit line in view. */
function niceCeil(x: number): number {
  if (!(x > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(x));
  return [1, 2, 5, 10].map((m) => m * power).find((v) => v >= x) ?? 10 * power;
}

export function SearchChart({
  steps,
  limitMs,
}: {
  steps: Array<{ ratePerS: number; p99Ms: number; passed: boolean }>;
  limitMs: number;
}) {
  if (steps.length === 0) return <p className="muted">The search ran no step.</p>;
  const passed = steps.filter((s) => s.passed).map((s) => ({ x: s.ratePerS, y: s.p99Ms }));
  const failed = steps.filter((s) => !s.passed).map((s) => ({ x: s.ratePerS, y: s.p99Ms }));
  return (
    <div style={{ width: "100%", height: 280 }} data-testid="load-test-search-chart">
      <ResponsiveContainer>
        <ComposedChart margin={{ top: 10, right: 20, bottom: 24, left: 10 }}>
          <CartesianGrid stroke="#e5e8ee" />
          <XAxis
            dataKey="x"
            type="number"
            domain={[0, "auto"]}
            tick={{ fontSize: 12 }}
            label={{ value: "offered rate (requests/s)", position: "insideBottom", offset: -14, fontSize: 12 }}
          />
          <YAxis
            dataKey="y"
            type="number"
            domain={[0, (max: number) => niceCeil(Math.max(max, limitMs) * 1.05)]}
            tickFormatter={(v: number) => v.toFixed(v < 10 ? 1 : 0)}
            tick={{ fontSize: 12 }}
            label={{ value: "p99 latency (ms)", angle: -90, position: "insideLeft", fontSize: 12 }}
          />
          <Tooltip formatter={(v) => `${Number(v).toFixed(2)}`} />
          <Legend verticalAlign="top" height={24} formatter={legendText} />
          <ReferenceLine
            y={limitMs}
            stroke="#d64545"
            strokeDasharray="4 3"
            label={{ value: `limit ${limitMs} ms`, fontSize: 11, position: "insideTopRight" }}
          />
          <Scatter data={passed} name="step passed" fill="#1f9d55" isAnimationActive={false} />
          <Scatter data={failed} name="step failed" fill="#d64545" shape="cross" isAnimationActive={false} />
        </ComposedChart>
      </ResponsiveContainer>
    </div>
  );
}
