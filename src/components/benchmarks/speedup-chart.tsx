"use client";
// Packrat's measured speedups per model × B against both baselines, with the min–max over repetitions as error
// bars and a line at 1× (left of it, Packrat was slower).
import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { speedupBars, speedupRows, type FigureLike } from "./speedup-data";

/** Legend text in the body colour: the pale bar colour stays readable. */
const legendText = (value: unknown) => <span style={{ color: "#1c2330" }}>{String(value)}</span>;

export function SpeedupChart({ figures, cores }: { figures: FigureLike[]; cores: number }) {
  const rows = speedupRows(speedupBars(figures)).map((r) => ({
    ...r,
    defaultErr:
      r.vsDefault !== null && r.defaultRange
        ? [r.vsDefault - r.defaultRange[0], r.defaultRange[1] - r.vsDefault]
        : [0, 0],
    oneThreadErr:
      r.vsOneThread !== null && r.oneThreadRange
        ? [r.vsOneThread - r.oneThreadRange[0], r.oneThreadRange[1] - r.vsOneThread]
        : [0, 0],
  }));
  if (rows.length === 0) return <p className="muted">No speedup figures in this result.</p>;
  return (
    <div style={{ width: "100%", height: 60 + rows.length * 34 }} data-testid="benchmark-speedup-chart">
      <ResponsiveContainer>
        <BarChart
          data={rows}
          layout="vertical"
          margin={{ top: 10, right: 24, bottom: 24, left: 10 }}
          barCategoryGap={6}
        >
          <CartesianGrid stroke="#e5e8ee" horizontal={false} />
          <XAxis
            type="number"
            domain={[0, "auto"]}
            tick={{ fontSize: 12 }}
            tickFormatter={(v: number) => `${v}×`}
            label={{
              value:
                "speedup of Packrat (baseline mean ÷ Packrat mean; bars: median, whiskers: min–max over repetitions)",
              position: "insideBottom",
              offset: -14,
              fontSize: 12,
            }}
          />
          <YAxis type="category" dataKey="group" width={260} tick={{ fontSize: 12 }} interval={0} />
          <Tooltip formatter={(v) => `${Number(v).toFixed(3)}×`} />
          <Legend verticalAlign="top" height={28} formatter={legendText} />
          <ReferenceLine
            x={1}
            stroke="#1c2330"
            strokeDasharray="4 3"
            label={{ value: "1×", fontSize: 11, position: "insideBottomRight" }}
          />
          <Bar
            dataKey="vsDefault"
            name={`vs ⟨1,${cores},B⟩ (one instance, every thread)`}
            fill="#2f6fed"
            isAnimationActive={false}
          >
            <ErrorBar dataKey="defaultErr" width={4} stroke="#1c2330" direction="x" isAnimationActive={false} />
          </Bar>
          <Bar dataKey="vsOneThread" name="vs one-thread instances" fill="#9cc3a4" isAnimationActive={false}>
            <ErrorBar dataKey="oneThreadErr" width={4} stroke="#1c2330" direction="x" isAnimationActive={false} />
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
