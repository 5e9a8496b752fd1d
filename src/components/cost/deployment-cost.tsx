// One deployed model's section of the cost report: its tiles (each marked measured or modeled) and the peak-rate
// input that belongs to the report's form (the page's filters and every card's peak submit together).
import Link from "next/link";
import type { CostRow } from "@/server/services/cost-report";
import { formatCount, formatRate, formatUsd, roundForInput, unpricedNote } from "./cost-data";
import { COST_FORM_ID } from "./cost-params";

function Tile({
  label,
  value,
  sub,
  kind,
  testId,
}: {
  label: string;
  value: React.ReactNode;
  sub?: React.ReactNode;
  kind: "measured" | "modeled";
  testId: string;
}) {
  return (
    <div className={`summary-tile cost-tile ${kind}`} data-testid={testId}>
      <div className="summary-label">
        {label} <span className={`cost-kind ${kind}`}>{kind}</span>
      </div>
      <div className="summary-value" data-testid={`${testId}-value`}>
        {value}
      </div>
      {sub && <div className="summary-sub">{sub}</div>}
    </div>
  );
}

/** One deployed model's card: measured capacity and goodput, the modeled cost, replicas and saving, its peak input. */
export function DeploymentCost({ r }: { r: CostRow }) {
  const late = Math.max(0, r.usage.completed - r.usage.withinSlo);
  return (
    <section className="panel section cost-model" data-testid={`cost-row-${r.modelName}`}>
      <h3>
        {r.modelName}{" "}
        <span className="muted">
          v{r.modelVersion} on {r.hostName} · generation {r.generation}
        </span>
      </h3>
      <p className="small muted cost-meta">
        {r.hardwareClass} ·{" "}
        {r.price ? (
          <>
            {formatUsd(r.price.hourlyUsd)}/h today{r.price.demo && <span className="badge cost-demo">demo price</span>}
          </>
        ) : (
          <strong>no price for this hardware class</strong>
        )}
        {" · "}SLO{" "}
        {r.slo
          ? `${r.slo.quantile * 100}% within ${r.slo.deadlineMs} ms`
          : "not set (capacity and goodput cannot be judged)"}
      </p>
      <div className="summary-strip cost-tiles">
        <Tile
          label="Capacity"
          kind="measured"
          testId="cost-capacity"
          value={
            r.capacity ? (
              `${formatRate(r.capacity.ratePerS)} req/s`
            ) : (
              <span data-testid="cost-not-measured">not measured</span>
            )
          }
          sub={
            r.capacity ? (
              <>
                load test <Link href={`/load-tests/${r.capacity.loadTestId}`}>{r.capacity.loadTestId.slice(0, 8)}</Link>
                , {r.slo ? `p${r.slo.quantile * 100}` : "SLO"} {formatRate(r.capacity.latencyAtSloMs)} ms
              </>
            ) : (
              <Link href={`/deployments/${r.deploymentId}`} data-testid="cost-run-load-test">
                run a load test
              </Link>
            )
          }
        />
        <Tile
          label="Goodput"
          kind="measured"
          testId="cost-goodput"
          value={r.goodputPerHour === null ? "no heartbeats" : `${formatRate(r.goodputPerHour)} /h`}
          sub={
            <>
              within SLO · {formatCount(r.usage.withinSlo)} ok, {formatCount(late)} late,{" "}
              {formatCount(r.usage.rejected)} rejected, 0 fallback
            </>
          }
        />
        <Tile
          label="Cost per 1M inferences at capacity"
          kind="modeled"
          testId="cost-per-million-capacity"
          value={formatUsd(r.capacityCostPerMillionUsd)}
          sub={r.capacity ? "price ÷ measured capacity" : "needs a measured capacity"}
        />
        <Tile
          label="Cost per 1M inferences actual"
          kind="measured"
          testId="cost-per-million-actual"
          value={r.actual ? formatUsd(r.actual.costPerMillionUsd) : "—"}
          sub={
            <>
              {r.actual
                ? r.actual.costPerMillionUsd === null
                  ? "nothing met the SLO: unbounded"
                  : `${formatUsd(r.actual.windowCostUsd)} over ${formatRate(r.priced.windowS / 3600)} h at the prices then`
                : r.usage.windowS > 0
                  ? "no price in effect for its minutes"
                  : "no heartbeats in the period"}
              {r.priced.unpricedMinutes > 0 && (
                <span className="cost-unpriced" data-testid="cost-unpriced">
                  {" "}
                  · {unpricedNote(r.priced.unpricedMinutes, r.priced.unpricedS)}
                </span>
              )}
            </>
          }
        />
      </div>
      <div className="summary-strip cost-tiles">
        <div className="summary-tile cost-tile modeled" data-testid="cost-peak">
          <label className="summary-label" htmlFor={`peak-${r.deploymentId}`}>
            Peak rate (req/s) <span className="cost-kind modeled">input</span>
          </label>
          <input
            id={`peak-${r.deploymentId}`}
            form={COST_FORM_ID}
            name={`peak.${r.deploymentId}`}
            type="number"
            step="any"
            min="0"
            defaultValue={roundForInput(r.peakPerS)}
            placeholder="enter a peak"
            className="cost-peak-input"
            data-testid="cost-peak-input"
          />
          <div className="summary-sub">
            {r.peakSource === "measured"
              ? "prefilled: measured 7-day maximum (per minute)"
              : r.peakSource === "entered"
                ? "entered"
                : "no traffic in 7 days: enter one"}
          </div>
        </div>
        <Tile
          label="Replicas for the peak"
          kind="modeled"
          testId="cost-replicas"
          value={r.replicas ? r.replicas.total : "—"}
          sub={
            r.replicas ? (
              <>
                {r.replicas.base} base → {r.replicas.withHeadroom} with headroom → +k = {r.replicas.total}
                {r.replicas.survivesK ? "" : " (k failures overload it)"}
              </>
            ) : r.capacity ? (
              "needs a peak rate"
            ) : (
              "needs a measured capacity"
            )
          }
        />
        <Tile
          label="Monthly cost (730 h)"
          kind="modeled"
          testId="cost-monthly"
          value={formatUsd(r.monthlyCostUsd)}
          sub={
            r.replicas && r.price
              ? `${r.replicas.total} × ${formatUsd(r.price.hourlyUsd)}/h × 730 h`
              : "needs price, capacity and peak"
          }
        />
        <Tile
          label="Saving over ⟨1, T, B⟩"
          kind="modeled"
          testId="cost-saving"
          value={
            r.saving
              ? r.saving.costSavingPerMillionUsd !== null
                ? `${formatUsd(r.saving.costSavingPerMillionUsd)} per 1M`
                : `${r.saving.latencyRatio.toFixed(2)}× faster`
              : "—"
          }
          sub={
            r.saving && !("missing" in r.comparison) ? (
              <>
                {formatRate(r.comparison.runningLatencyMs)} ms vs {formatRate(r.comparison.defaultLatencyMs)} ms per
                batch of {r.comparison.batchSize} ({r.saving.latencyRatio.toFixed(2)}×, profile)
              </>
            ) : "missing" in r.comparison ? (
              r.comparison.missing
            ) : null
          }
        />
      </div>
    </section>
  );
}
