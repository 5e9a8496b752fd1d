"use client";
import { XYChart } from "@/components/charts/xy-chart";
import { formatUsdTick, trendAxis } from "./cost-data";

const day = (ms: number, hourly: boolean) => {
  const iso = new Date(ms).toISOString();
  return hourly ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(0, 10);
};

/** Cost per 1M SLO-meeting inferences per hour (24 h) or per day, across the priced deployments shown. */
export function CostTrendChart({
  points,
  hourly,
  since,
  until,
}: {
  points: ReadonlyArray<{ t: number; costPerMillionUsd: number }>;
  hourly: boolean;
  since: Date;
  until: Date;
}) {
  if (points.length === 0) {
    return (
      <div className="chart-empty" data-testid="cost-trend-empty">
        No SLO-meeting traffic on a priced hardware class in this period: nothing to chart.
      </div>
    );
  }
  const axis = trendAxis(since, until, hourly);
  return (
    <div data-testid="cost-trend-chart">
      <XYChart
        rows={points.map((p) => ({ t: p.t, cost: p.costPerMillionUsd }))}
        xKey="t"
        xLabel={hourly ? "hour (UTC)" : "day (UTC)"}
        yLabel="$ per 1M inferences"
        xDomain={axis.domain}
        xTicks={axis.ticks}
        lines={[{ key: "cost", label: "cost per 1M SLO-meeting inferences", color: "#2563eb", dots: true }]}
        formatX={(v) => day(v, hourly)}
        formatY={formatUsdTick}
        height={260}
      />
    </div>
  );
}
