import type { Metadata } from "next";
import Link from "next/link";
import { Forbidden } from "@/components/forbidden";
import { costCsvTable, formatCount, formatRate, formatUsd, PERIOD_LABELS, roundForInput, unpricedNote } from "@/components/cost/cost-data";
import { parseCostParams, serializeCostParams } from "@/components/cost/cost-params";
import { CostToolbar } from "@/components/cost/cost-toolbar";
import { CostTrendChart } from "@/components/cost/cost-trend-chart";
import { PriceEditor } from "@/components/cost/price-editor";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/server/auth/roles";
import type { CostRow } from "@/server/services/cost-report";
import { getCostReport, listPriceHistory, listPrices } from "@/server/services/cost-service";
import "@/components/cost/cost.css";

export const metadata: Metadata = { title: "Cost · Packrat" };
export const dynamic = "force-dynamic";

const FORM = "cost-form";
const utc = (d: Date) => `${d.toISOString().replace("T", " ").slice(0, 16)} UTC`;

function Tile({ label, value, sub, kind, testId }: { label: string; value: React.ReactNode; sub?: React.ReactNode; kind: "measured" | "modeled"; testId: string }) {
  return (
    <div className={`summary-tile cost-tile ${kind}`} data-testid={testId}>
      <div className="summary-label">{label} <span className={`cost-kind ${kind}`}>{kind}</span></div>
      <div className="summary-value" data-testid={`${testId}-value`}>{value}</div>
      {sub && <div className="summary-sub">{sub}</div>}
    </div>
  );
}

function DeploymentCost({ r }: { r: CostRow }) {
  const late = Math.max(0, r.usage.completed - r.usage.withinSlo);
  return (
    <section className="panel section cost-model" data-testid={`cost-row-${r.modelName}`}>
      <h3>
        {r.modelName} <span className="muted">v{r.modelVersion} on {r.hostName} · generation {r.generation}</span>
      </h3>
      <p className="small muted cost-meta">
        {r.hardwareClass} · {r.price ? <>{formatUsd(r.price.hourlyUsd)}/h today{r.price.demo && <span className="badge cost-demo">demo price</span>}</> : <strong>no price for this hardware class</strong>}
        {" · "}SLO {r.slo ? `${r.slo.quantile * 100}% within ${r.slo.deadlineMs} ms` : "not set (capacity and goodput cannot be judged)"}
      </p>
      <div className="summary-strip cost-tiles">
        <Tile
          label="Capacity" kind="measured" testId="cost-capacity"
          value={r.capacity ? `${formatRate(r.capacity.ratePerS)} req/s` : <span data-testid="cost-not-measured">not measured</span>}
          sub={r.capacity
            ? <>load test <Link href={`/load-tests/${r.capacity.loadTestId}`}>{r.capacity.loadTestId.slice(0, 8)}</Link>, {r.slo ? `p${r.slo.quantile * 100}` : "SLO"} {formatRate(r.capacity.latencyAtSloMs)} ms</>
            : <Link href={`/deployments/${r.deploymentId}`} data-testid="cost-run-load-test">run a load test</Link>}
        />
        <Tile
          label="Goodput" kind="measured" testId="cost-goodput"
          value={r.goodputPerHour === null ? "no heartbeats" : `${formatRate(r.goodputPerHour)} /h`}
          sub={<>within SLO · {formatCount(r.usage.withinSlo)} ok, {formatCount(late)} late, {formatCount(r.usage.rejected)} rejected, 0 fallback</>}
        />
        <Tile
          label="Cost per 1M inferences at capacity" kind="modeled" testId="cost-per-million-capacity"
          value={formatUsd(r.capacityCostPerMillionUsd)} sub={r.capacity ? "price ÷ measured capacity" : "needs a measured capacity"}
        />
        <Tile
          label="Cost per 1M inferences actual" kind="measured" testId="cost-per-million-actual"
          value={r.actual ? formatUsd(r.actual.costPerMillionUsd) : "—"}
          sub={<>
            {r.actual ? (r.actual.costPerMillionUsd === null ? "nothing met the SLO: unbounded" : `${formatUsd(r.actual.windowCostUsd)} over ${formatRate(r.priced.windowS / 3600)} h at the prices then`) : r.usage.windowS > 0 ? "no price in effect for its minutes" : "no heartbeats in the period"}
            {r.priced.unpricedMinutes > 0 && <span className="cost-unpriced" data-testid="cost-unpriced"> · {unpricedNote(r.priced.unpricedMinutes, r.priced.unpricedS)}</span>}
          </>}
        />
      </div>
      <div className="summary-strip cost-tiles">
        <div className="summary-tile cost-tile modeled" data-testid="cost-peak">
          <label className="summary-label" htmlFor={`peak-${r.deploymentId}`}>Peak rate (req/s) <span className="cost-kind modeled">input</span></label>
          <input
            id={`peak-${r.deploymentId}`} form={FORM} name={`peak.${r.deploymentId}`} type="number" step="any" min="0"
            defaultValue={roundForInput(r.peakPerS)} placeholder="enter a peak" className="cost-peak-input" data-testid="cost-peak-input"
          />
          <div className="summary-sub">{r.peakSource === "measured" ? "prefilled: measured 7-day maximum (per minute)" : r.peakSource === "entered" ? "entered" : "no traffic in 7 days: enter one"}</div>
        </div>
        <Tile
          label="Replicas for the peak" kind="modeled" testId="cost-replicas"
          value={r.replicas ? r.replicas.total : "—"}
          sub={r.replicas ? <>{r.replicas.base} base → {r.replicas.withHeadroom} with headroom → +k = {r.replicas.total}{r.replicas.survivesK ? "" : " (k failures overload it)"}</> : r.capacity ? "needs a peak rate" : "needs a measured capacity"}
        />
        <Tile label="Monthly cost (730 h)" kind="modeled" testId="cost-monthly" value={formatUsd(r.monthlyCostUsd)} sub={r.replicas && r.price ? `${r.replicas.total} × ${formatUsd(r.price.hourlyUsd)}/h × 730 h` : "needs price, capacity and peak"} />
        <Tile
          label="Saving over ⟨1, T, B⟩" kind="modeled" testId="cost-saving"
          value={r.saving ? (r.saving.costSavingPerMillionUsd !== null ? `${formatUsd(r.saving.costSavingPerMillionUsd)} per 1M` : `${r.saving.latencyRatio.toFixed(2)}× faster`) : "—"}
          sub={r.saving && !("missing" in r.comparison)
            ? <>{formatRate(r.comparison.runningLatencyMs)} ms vs {formatRate(r.comparison.defaultLatencyMs)} ms per batch of {r.comparison.batchSize} ({r.saving.latencyRatio.toFixed(2)}×, profile)</>
            : "missing" in r.comparison ? r.comparison.missing : null}
        />
      </div>
    </section>
  );
}

// Managers read cost reports (and SREs, who size fleets); admins also set the prices.
export default async function CostPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const search = await searchParams;
  const { input, problems } = parseCostParams(search);
  const query = serializeCostParams(input);
  const user = await requireUser(`/cost${query ? `?${query}` : ""}`);
  const canRead = roleSatisfies(user.role, "manager") || roleSatisfies(user.role, "sre");
  if (!canRead) return <Forbidden role="manager" current={user.role} />;
  const canEdit = roleSatisfies(user.role, "admin");
  const [report, prices, history] = await Promise.all([getCostReport(input), listPrices(), canEdit ? listPriceHistory() : Promise.resolve([])]);
  const historyClasses = [...new Set(history.map((h) => h.hardwareClass))].sort();
  const models = report.filterOptions.models;
  const modelName = (id: string | undefined) => models.find((m) => m.id === id)?.name;
  const filters = [
    input.modelId ? `model ${modelName(input.modelId) ?? input.modelId}` : "all models",
    input.hardwareClass ? `hardware class ${input.hardwareClass}` : "all hardware classes",
    `headroom ${input.headroomMultiplier}×`, `N+${input.redundancyK}`,
  ].join(" · ");
  const t = report.totals.all;
  const be = report.breakEven;
  return (
    <div className="cost-page">
      <h1>Cost</h1>
      <header className="cost-report-header" data-testid="cost-report-header">
        <div className="cost-report-title">Packrat cost report</div>
        <div>Date: <strong data-testid="cost-report-date">{utc(report.generatedAt)}</strong> · Period: <strong data-testid="cost-report-period">{PERIOD_LABELS[report.period]} ({utc(report.since)} – {utc(report.until)})</strong></div>
        <div>Filters: {filters}</div>
        <div>Data sources: hardware prices and their history (set by admins{prices.some((p) => p.demo) ? "; a demo price is marked" : ""}), load tests at the running generation (capacity), agent heartbeats rolled up per minute (goodput, late, rejected, peak), profiles (running configuration vs ⟨1, T, B⟩).</div>
        <div><span className="cost-kind measured">measured</span> capacity, goodput, rejected/late counts, the 7-day peak, actual cost and cost per 1M inferences (each minute reported × the price in effect then ÷ SLO-meeting inferences; minutes with no price then are counted, not priced). <span className="cost-kind modeled">modeled</span> at today&apos;s prices: cost per 1M inferences at capacity, replicas, monthly cost, the saving over ⟨1, T, B⟩ (profile predictions) and break-even (planning core I, §13.10).</div>
      </header>
      <p className="subtitle no-print">
        What serving each deployed model costs: measured capacity and goodput priced per hardware class, cost per 1M inferences, and the replicas and month a peak needs. The URL holds the period and filters: share it.
      </p>
      {problems.length > 0 && <div className="error-box no-print" role="alert" data-testid="cost-param-problems">Ignored: {problems.join("; ")}</div>}

      <form id={FORM} method="get" action="/cost" className="filters cost-filters no-print" data-testid="cost-filters">
        <label className="form-field"><span>Period</span>
          <select name="period" defaultValue={input.period} data-testid="cost-period">
            {Object.entries(PERIOD_LABELS).map(([k, v]) => <option key={k} value={k}>{v}</option>)}
          </select></label>
        <label className="form-field"><span>Model</span>
          <select name="model" defaultValue={input.modelId ?? ""} data-testid="cost-model-filter">
            <option value="">all models</option>
            {models.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}
          </select></label>
        <label className="form-field"><span>Hardware class</span>
          <select name="hw" defaultValue={input.hardwareClass ?? ""}>
            <option value="">all classes</option>
            {report.filterOptions.hardwareClasses.map((c) => <option key={c} value={c}>{c}</option>)}
          </select></label>
        <label className="form-field"><span>Headroom (×)</span><input name="headroom" type="number" step="any" min="1" defaultValue={input.headroomMultiplier} /></label>
        <label className="form-field"><span>N + k (spare replicas)</span><input name="k" type="number" step="1" min="0" defaultValue={input.redundancyK} /></label>
        <div className="cost-apply"><button type="submit" className="btn primary" data-testid="cost-apply">Apply</button></div>
      </form>
      <CostToolbar table={costCsvTable(report.rows)} title={`packrat cost ${report.period} ${report.generatedAt.toISOString().slice(0, 10)}`} />

      <section className="section">
        <h2>Totals ({PERIOD_LABELS[report.period]})</h2>
        <div className="summary-strip" data-testid="cost-totals">
          <div className="summary-tile"><div className="summary-label">Cost of the period <span className="cost-kind measured">measured</span></div><div className="summary-value">{formatUsd(t.costUsd)}</div><div className="summary-sub">{t.deployments} deployments{t.unpriced ? `, ${t.unpriced} without a price` : ""}{t.unpricedMinutes > 0 && <span className="cost-unpriced" data-testid="cost-totals-unpriced">; {unpricedNote(t.unpricedMinutes, t.unpricedS)}</span>}</div></div>
          <div className="summary-tile"><div className="summary-label">Inferences within the SLO</div><div className="summary-value">{formatCount(t.goodput)}</div><div className="summary-sub">{formatCount(t.late)} late, {formatCount(t.rejected)} rejected, 0 fallback</div></div>
          <div className="summary-tile"><div className="summary-label">Cost per 1M inferences</div><div className="summary-value">{formatUsd(t.costPerMillionUsd)}</div><div className="summary-sub">Σ cost ÷ Σ SLO-meeting inferences</div></div>
          <div className="summary-tile"><div className="summary-label">Monthly cost at the peaks <span className="cost-kind modeled">modeled</span></div><div className="summary-value">{formatUsd(t.monthlyCostUsd)}</div><div className="summary-sub">730 h, replicas with headroom and N+{input.redundancyK}</div></div>
        </div>
        <div className="table-wrap" style={{ marginTop: 12 }}>
          <table className="data" data-testid="cost-model-totals">
            <thead><tr><th>model</th><th className="num">deployments</th><th className="num">cost of the period</th><th className="num">within SLO</th><th className="num">rejected</th><th className="num">cost per 1M inferences</th><th className="num">monthly (modeled)</th></tr></thead>
            <tbody>
              {report.totals.models.map((m) => (
                <tr key={m.modelId}><td>{m.modelName}</td><td className="num">{m.deployments}</td><td className="num">{formatUsd(m.costUsd)}</td><td className="num">{formatCount(m.goodput)}</td><td className="num">{formatCount(m.rejected)}</td><td className="num">{formatUsd(m.costPerMillionUsd)}</td><td className="num">{formatUsd(m.monthlyCostUsd)}</td></tr>
              ))}
              {report.totals.models.length === 0 && <tr><td colSpan={7} className="muted">No deployed model matches the filters.</td></tr>}
            </tbody>
          </table>
        </div>
      </section>

      <section className="section">
        <h2>Per deployed model</h2>
        {report.rows.map((r) => <DeploymentCost key={r.deploymentId} r={r} />)}
        {report.rows.length > 0 && <div className="no-print"><button type="submit" form={FORM} className="btn">Recompute with these peak rates</button></div>}
      </section>

      <section className="section cost-chart-section">
        <h2>Cost per 1M inferences over time</h2>
        <div className="chart-card">
          <CostTrendChart points={report.trend} hourly={report.period === "24h"} since={report.since} until={report.until} />
          <p className="chart-note">Per {report.period === "24h" ? "hour" : "day"}: each minute reported × the price in effect then, ÷ the inferences that met the SLO; minutes with no price then are left out.</p>
        </div>
      </section>

      <section className="section">
        <h2>Break-even between two hardware classes</h2>
        <div className="filters cost-breakeven no-print">
          <label className="form-field"><span>Model</span>
            <select name="beModel" form={FORM} defaultValue={input.breakEven?.modelId ?? report.rows.find((r) => r.capacity)?.modelId ?? models[0]?.id ?? ""}>{models.map((m) => <option key={m.id} value={m.id}>{m.name}</option>)}</select></label>
          {(["A", "B"] as const).map((side) => (
            <label key={side} className="form-field"><span>Class {side}</span>
              <select name={`be${side}`} form={FORM} defaultValue={(side === "A" ? input.breakEven?.classA : input.breakEven?.classB) ?? ""}>
                <option value="">choose</option>
                {prices.filter((p) => p.hourlyUsd !== null).map((p) => <option key={p.hardwareClass} value={p.hardwareClass}>{p.hardwareClass} ({formatUsd(p.hourlyUsd)}/h)</option>)}
              </select>
            </label>
          ))}
          <label className="form-field"><span>Capacity A (req/s, blank: measured)</span><input name="beCapA" form={FORM} type="number" step="any" min="0" defaultValue={input.breakEven?.capacityA ?? ""} /></label>
          <label className="form-field"><span>Capacity B (req/s, blank: measured)</span><input name="beCapB" form={FORM} type="number" step="any" min="0" defaultValue={input.breakEven?.capacityB ?? ""} /></label>
          <div className="cost-apply"><button type="submit" form={FORM} className="btn">Compare</button></div>
        </div>
        {!be && <p className="muted small">Choose a model and two priced classes: the load above which one instance of the dearer class costs less than the cheaper class sized to the load (F-68).</p>}
        {be && "error" in be && <div className="error-box" role="alert">{be.error}</div>}
        {be && "result" in be && (
          <div className="panel" data-testid="cost-break-even">
            <p>
              For {modelName(be.modelId) ?? "the model"}: {be.large.hardwareClass} ({formatUsd(be.large.hourlyUsd)}/h, {formatRate(be.large.capacityPerS)} req/s {be.large.capacitySource}, {formatUsd(be.largeCostPerMillionUsd)} per 1M inferences)
              against {be.small.hardwareClass} ({formatUsd(be.small.hourlyUsd)}/h, {formatRate(be.small.capacityPerS)} req/s {be.small.capacitySource}, {formatUsd(be.smallCostPerMillionUsd)} per 1M inferences).
            </p>
            <p>
              Hourly ratio {be.result.hourlyRatio.toFixed(2)}×. Break-even sustained load: <strong>{formatRate(be.result.continuousPerS)} req/s</strong> (whole instances of the cheaper class: {formatRate(be.result.wholeSmallInstancesPerS)} req/s).
              {be.result.largeCarriesBreakEven ? " Above it the dearer class costs less." : " One instance of the dearer class cannot carry that load: it never wins on a single instance."}
            </p>
          </div>
        )}
      </section>

      <section className="section" data-testid="cost-prices">
        <h2>Hardware prices</h2>
        <div className="table-wrap">
          <table className="data">
            <thead><tr><th>hardware class</th><th>hosts</th><th className="num">$ per hour</th><th>note</th>{canEdit && <th className="no-print">edit</th>}</tr></thead>
            <tbody>
              {prices.map((p) => (
                <tr key={p.hardwareClass} data-testid="price-row">
                  <td>{p.hardwareClass}</td><td>{p.hosts.join(", ") || <span className="muted">none now</span>}</td>
                  <td className="num">{p.hourlyUsd === null ? <span className="muted">no price</span> : formatUsd(p.hourlyUsd)}{p.demo && <span className="badge cost-demo" data-testid="price-demo">demo price</span>}</td>
                  <td className="small">{p.note}</td>
                  {canEdit && <td className="no-print">{/* The demo note describes the seeded price, not the real one an admin sets over it. */}<PriceEditor hardwareClass={p.hardwareClass} hourlyUsd={p.hourlyUsd} note={p.demo ? "" : p.note} /></td>}
                </tr>
              ))}
              {prices.length === 0 && <tr><td colSpan={canEdit ? 5 : 4} className="muted">No agents and no prices yet.</td></tr>}
            </tbody>
          </table>
        </div>
        {!canEdit && <p className="small muted no-print" data-testid="cost-prices-readonly">Prices are set by admins (every change is audited).</p>}
        {canEdit && historyClasses.length > 0 && (
          <div className="price-history" data-testid="price-history">
            <h3>Price history</h3>
            <p className="small muted">Past usage is priced at the price in effect then; a change applies from the minute it was made in.</p>
            <div className="price-history-classes">
              {historyClasses.map((cls) => (
                <table key={cls} className="data price-history-table" data-testid="price-history-class">
                  <caption>{cls}</caption>
                  <thead><tr><th>from (UTC)</th><th className="num">$ per hour</th><th>by</th></tr></thead>
                  <tbody>
                    {history.filter((h) => h.hardwareClass === cls).map((h) => (
                      <tr key={h.id} data-testid="price-history-row">
                        <td>{utc(h.effectiveFrom)}</td>
                        <td className="num">{h.hourlyUsd === null ? <span className="muted">removed</span> : formatUsd(h.hourlyUsd)}{h.demo && <span className="badge cost-demo">demo</span>}</td>
                        <td className="small">{h.changedBy ? h.changedBy.name || h.changedBy.email : <span className="muted">{h.demo ? "npm start" : "unknown"}</span>}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              ))}
            </div>
          </div>
        )}
      </section>
    </div>
  );
}
