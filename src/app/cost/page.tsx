import type { Metadata } from "next";
import { Forbidden } from "@/components/forbidden";
import {
  costCsvTable,
  formatCount,
  formatRate,
  formatUsd,
  formatUtcMinute,
  PERIOD_LABELS,
  unpricedNote,
} from "@/components/cost/cost-data";
import { DeploymentCost } from "@/components/cost/deployment-cost";
import { COST_FORM_ID, parseCostParams, serializeCostParams } from "@/components/cost/cost-params";
import { CostToolbar } from "@/components/cost/cost-toolbar";
import { CostTrendChart } from "@/components/cost/cost-trend-chart";
import { PriceTable } from "@/components/cost/price-table";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { getCostReport, listPriceHistory, listPrices } from "@/server/services/cost-service";
import "@/components/cost/cost.css";

export const metadata: Metadata = { title: "Cost · Packrat" };
export const dynamic = "force-dynamic";

// Managers read cost reports (and SREs, who size fleets); admins also set the prices.
export default async function CostPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const search = await searchParams;
  const { input, problems } = parseCostParams(search);
  const query = serializeCostParams(input);
  const user = await requireUser(`/cost${query ? `?${query}` : ""}`);
  const canRead = roleSatisfies(user.role, "manager") || roleSatisfies(user.role, "sre");
  if (!canRead) return <Forbidden role="manager" current={user.role} />;
  const canEdit = roleSatisfies(user.role, "admin");
  const [report, prices, history] = await Promise.all([
    getCostReport(input),
    listPrices(),
    canEdit ? listPriceHistory() : Promise.resolve([]),
  ]);
  const models = report.filterOptions.models;
  const modelName = (id: string | undefined) => models.find((m) => m.id === id)?.name;
  const filters = [
    input.modelId ? `model ${modelName(input.modelId) ?? input.modelId}` : "all models",
    input.hardwareClass ? `hardware class ${input.hardwareClass}` : "all hardware classes",
    `headroom ${input.headroomMultiplier}×`,
    `N+${input.redundancyK}`,
  ].join(" · ");
  const t = report.totals.all;
  const be = report.breakEven;
  return (
    <div className="cost-page">
      <h1>Cost</h1>
      <header className="cost-report-header" data-testid="cost-report-header">
        <div className="cost-report-title">Packrat cost report</div>
        <div>
          Date: <strong data-testid="cost-report-date">{formatUtcMinute(report.generatedAt)}</strong> · Period:{" "}
          <strong data-testid="cost-report-period">
            {PERIOD_LABELS[report.period]} ({formatUtcMinute(report.since)} – {formatUtcMinute(report.until)})
          </strong>
        </div>
        <div>Filters: {filters}</div>
        <div>
          Data sources: hardware prices and their history (set by admins
          {prices.some((p) => p.demo) ? "; a demo price is marked" : ""}), load tests at the running generation
          (capacity), agent heartbeats rolled up per minute (goodput, late, rejected, peak), profiles (running
          configuration vs ⟨1, T, B⟩).
        </div>
        <div>
          <span className="cost-kind measured">measured</span> capacity, goodput, rejected/late counts, the 7-day peak,
          actual cost and cost per 1M inferences (each minute reported × the price in effect then ÷ SLO-meeting
          inferences; minutes with no price then are counted, not priced).{" "}
          <span className="cost-kind modeled">modeled</span> at today&apos;s prices: cost per 1M inferences at capacity,
          replicas, monthly cost, the saving over ⟨1, T, B⟩ (profile predictions) and break-even (planning core I,
          §13.10).
        </div>
      </header>
      <p className="subtitle no-print">
        What serving each deployed model costs: measured capacity and goodput priced per hardware class, cost per 1M
        inferences, and the replicas and month a peak needs. The URL holds the period and filters: share it.
      </p>
      {problems.length > 0 && (
        <div className="error-box no-print" role="alert" data-testid="cost-param-problems">
          Ignored: {problems.join("; ")}
        </div>
      )}

      <form
        id={COST_FORM_ID}
        method="get"
        action="/cost"
        className="filters cost-filters no-print"
        data-testid="cost-filters"
      >
        <label className="form-field">
          <span>Period</span>
          <select name="period" defaultValue={input.period} data-testid="cost-period">
            {Object.entries(PERIOD_LABELS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Model</span>
          <select name="model" defaultValue={input.modelId ?? ""} data-testid="cost-model-filter">
            <option value="">all models</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Hardware class</span>
          <select name="hw" defaultValue={input.hardwareClass ?? ""}>
            <option value="">all classes</option>
            {report.filterOptions.hardwareClasses.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </label>
        <label className="form-field">
          <span>Headroom (×)</span>
          <input name="headroom" type="number" step="any" min="1" defaultValue={input.headroomMultiplier} />
        </label>
        <label className="form-field">
          <span>N + k (spare replicas)</span>
          <input name="k" type="number" step="1" min="0" defaultValue={input.redundancyK} />
        </label>
        <div className="cost-apply">
          <button type="submit" className="btn primary" data-testid="cost-apply">
            Apply
          </button>
        </div>
      </form>
      <CostToolbar
        table={costCsvTable(report.rows)}
        title={`packrat cost ${report.period} ${report.generatedAt.toISOString().slice(0, 10)}`}
      />

      <section className="section">
        <h2>Totals ({PERIOD_LABELS[report.period]})</h2>
        <div className="summary-strip" data-testid="cost-totals">
          <div className="summary-tile">
            <div className="summary-label">
              Cost of the period <span className="cost-kind measured">measured</span>
            </div>
            <div className="summary-value">{formatUsd(t.costUsd)}</div>
            <div className="summary-sub">
              {t.deployments} deployments{t.unpriced ? `, ${t.unpriced} without a price` : ""}
              {t.unpricedMinutes > 0 && (
                <span className="cost-unpriced" data-testid="cost-totals-unpriced">
                  ; {unpricedNote(t.unpricedMinutes, t.unpricedS)}
                </span>
              )}
            </div>
          </div>
          <div className="summary-tile">
            <div className="summary-label">Inferences within the SLO</div>
            <div className="summary-value">{formatCount(t.goodput)}</div>
            <div className="summary-sub">
              {formatCount(t.late)} late, {formatCount(t.rejected)} rejected, 0 fallback
            </div>
          </div>
          <div className="summary-tile">
            <div className="summary-label">Cost per 1M inferences</div>
            <div className="summary-value">{formatUsd(t.costPerMillionUsd)}</div>
            <div className="summary-sub">Σ cost ÷ Σ SLO-meeting inferences</div>
          </div>
          <div className="summary-tile">
            <div className="summary-label">
              Monthly cost at the peaks <span className="cost-kind modeled">modeled</span>
            </div>
            <div className="summary-value">{formatUsd(t.monthlyCostUsd)}</div>
            <div className="summary-sub">730 h, replicas with headroom and N+{input.redundancyK}</div>
          </div>
        </div>
        <div className="table-wrap" style={{ marginTop: 12 }}>
          <table className="data" data-testid="cost-model-totals">
            <thead>
              <tr>
                <th>model</th>
                <th className="num">deployments</th>
                <th className="num">cost of the period</th>
                <th className="num">within SLO</th>
                <th className="num">rejected</th>
                <th className="num">cost per 1M inferences</th>
                <th className="num">monthly (modeled)</th>
              </tr>
            </thead>
            <tbody>
              {report.totals.models.map((m) => (
                <tr key={m.modelId}>
                  <td>{m.modelName}</td>
                  <td className="num">{m.deployments}</td>
                  <td className="num">{formatUsd(m.costUsd)}</td>
                  <td className="num">{formatCount(m.goodput)}</td>
                  <td className="num">{formatCount(m.rejected)}</td>
                  <td className="num">{formatUsd(m.costPerMillionUsd)}</td>
                  <td className="num">{formatUsd(m.monthlyCostUsd)}</td>
                </tr>
              ))}
              {report.totals.models.length === 0 && (
                <tr>
                  <td colSpan={7} className="muted">
                    No deployed model matches the filters.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </section>

      <section className="section">
        <h2>Per deployed model</h2>
        {report.rows.map((r) => (
          <DeploymentCost key={r.deploymentId} r={r} />
        ))}
        {report.rows.length > 0 && (
          <div className="no-print">
            <button type="submit" form={COST_FORM_ID} className="btn">
              Recompute with these peak rates
            </button>
          </div>
        )}
      </section>

      <section className="section cost-chart-section">
        <h2>Cost per 1M inferences over time</h2>
        <div className="chart-card">
          <CostTrendChart
            points={report.trend}
            hourly={report.period === "24h"}
            since={report.since}
            until={report.until}
          />
          <p className="chart-note">
            Per {report.period === "24h" ? "hour" : "day"}: each minute reported × the price in effect then, ÷ the
            inferences that met the SLO; minutes with no price then are left out.
          </p>
        </div>
      </section>

      <section className="section">
        <h2>Break-even between two hardware classes</h2>
        <div className="filters cost-breakeven no-print">
          <label className="form-field">
            <span>Model</span>
            <select
              name="beModel"
              form={COST_FORM_ID}
              defaultValue={
                input.breakEven?.modelId ?? report.rows.find((r) => r.capacity)?.modelId ?? models[0]?.id ?? ""
              }
            >
              {models.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </select>
          </label>
          {(["A", "B"] as const).map((side) => (
            <label key={side} className="form-field">
              <span>Class {side}</span>
              <select
                name={`be${side}`}
                form={COST_FORM_ID}
                defaultValue={(side === "A" ? input.breakEven?.classA : input.breakEven?.classB) ?? ""}
              >
                <option value="">choose</option>
                {prices
                  .filter((p) => p.hourlyUsd !== null)
                  .map((p) => (
                    <option key={p.hardwareClass} value={p.hardwareClass}>
                      {p.hardwareClass} ({formatUsd(p.hourlyUsd)}/h)
                    </option>
                  ))}
              </select>
            </label>
          ))}
          <label className="form-field">
            <span>Capacity A (req/s, blank: measured)</span>
            <input
              name="beCapA"
              form={COST_FORM_ID}
              type="number"
              step="any"
              min="0"
              defaultValue={input.breakEven?.capacityA ?? ""}
            />
          </label>
          <label className="form-field">
            <span>Capacity B (req/s, blank: measured)</span>
            <input
              name="beCapB"
              form={COST_FORM_ID}
              type="number"
              step="any"
              min="0"
              defaultValue={input.breakEven?.capacityB ?? ""}
            />
          </label>
          <div className="cost-apply">
            <button type="submit" form={COST_FORM_ID} className="btn">
              Compare
            </button>
          </div>
        </div>
        {!be && (
          <p className="muted small">
            Choose a model and two priced classes: the load above which one instance of the dearer class costs less than
            the cheaper class sized to the load (F-68).
          </p>
        )}
        {be && "error" in be && (
          <div className="error-box" role="alert">
            {be.error}
          </div>
        )}
        {be && "result" in be && (
          <div className="panel" data-testid="cost-break-even">
            <p>
              For {modelName(be.modelId) ?? "the model"}: {be.large.hardwareClass} ({formatUsd(be.large.hourlyUsd)}/h,{" "}
              {formatRate(be.large.capacityPerS)} req/s {be.large.capacitySource},{" "}
              {formatUsd(be.largeCostPerMillionUsd)} per 1M inferences) against {be.small.hardwareClass} (
              {formatUsd(be.small.hourlyUsd)}/h, {formatRate(be.small.capacityPerS)} req/s {be.small.capacitySource},{" "}
              {formatUsd(be.smallCostPerMillionUsd)} per 1M inferences).
            </p>
            <p>
              Hourly ratio {be.result.hourlyRatio.toFixed(2)}×. Break-even sustained load:{" "}
              <strong>{formatRate(be.result.continuousPerS)} req/s</strong> (whole instances of the cheaper class:{" "}
              {formatRate(be.result.wholeSmallInstancesPerS)} req/s).
              {be.result.largeCarriesBreakEven
                ? " Above it the dearer class costs less."
                : " One instance of the dearer class cannot carry that load: it never wins on a single instance."}
            </p>
          </div>
        )}
      </section>

      <PriceTable prices={prices} history={history} canEdit={canEdit} />
    </div>
  );
}
