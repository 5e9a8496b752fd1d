"use client";
// One load test: what was asked and against which generation; while it runs, its state (polled); then throughput,
// percentiles and their spectrum, errors by class, the per-second timeline, and for a search its steps. The raw
// report (the load generator's JSON) downloads as it was stored.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatTime } from "@/components/format-time";
import { useTRPC } from "@/trpc/react";
import { statusBadge } from "./deployment-load-tests";
import { SearchChart, SpectrumChart, TimelineChart } from "./load-test-charts";
import { describeSpec } from "./load-test-form-data";
import "./load-tests.css";

const ms = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${v.toFixed(v < 10 ? 2 : 1)} ms`);
const perS = (v: number) => `${v.toFixed(v < 10 ? 2 : 1)}/s`;

function Tile({ label, value, sub, testId }: { label: string; value: string; sub?: string; testId?: string }) {
  return (
    <div className="summary-tile" data-testid={testId}>
      <div className="summary-label">{label}</div>
      <div className="summary-value">{value}</div>
      {sub && <div className="summary-sub">{sub}</div>}
    </div>
  );
}

function planText(planAtStart: { label: string; plan: unknown } | null): string {
  if (!planAtStart) return "";
  const p = planAtStart.plan as {
    instances?: Array<{ count: number; threads: number; batch: number }>;
    batchSize?: number;
    batchTimeoutMs?: number;
  };
  const items = (p.instances ?? []).map((i) => `${i.count}×⟨${i.threads}t, b=${i.batch}⟩`).join(" + ");
  const B = p.batchSize ?? (p.instances ?? []).reduce((s, i) => s + i.count * i.batch, 0);
  return `${planAtStart.label}: ${items}, B = ${B}, timeout ${p.batchTimeoutMs ?? 0} ms`;
}

export function LoadTestView({ id }: { id: string }) {
  const trpc = useTRPC();
  const query = useQuery(
    trpc.loadTests.get.queryOptions(
      { id },
      {
        refetchInterval: (q) =>
          q.state.data && (q.state.data.status === "queued" || q.state.data.status === "running") ? 1000 : false,
      },
    ),
  );
  if (query.isPending) return <p className="muted">Loading…</p>;
  if (query.error)
    return (
      <div className="error-box" role="alert">
        {query.error.message}
      </div>
    );
  const t = query.data;
  const open = t.summary?.open ?? null;
  const search = t.summary?.search ?? null;
  const download = () => {
    const blob = new Blob([`${JSON.stringify(t.report, null, 2)}\n`], { type: "application/json" });
    const url = URL.createObjectURL(blob);
    const link = document.createElement("a");
    link.href = url;
    link.download = `load-test-${t.id}.json`;
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  };
  return (
    <>
      <h1 data-testid="load-test-title">
        Load test of {t.model.name}
        {t.model.version !== null ? ` v${t.model.version}` : ""} on {t.hostName}
      </h1>
      <p className="subtitle" data-testid="load-test-conditions">
        {describeSpec(t.spec)} · started {formatTime(t.createdAt)}
        {t.createdBy ? ` by ${t.createdBy}` : ""} · <Link href={`/deployments/${t.deploymentId}`}>its deployment</Link>
      </p>
      <section className="panel section load-test-state" data-testid="load-test-state">
        <span className={`badge ${statusBadge(t.status)}`} data-testid="load-test-status">
          {t.status}
        </span>
        <span>
          {t.status === "queued" && "Waiting for the agent to claim it."}
          {t.status === "running" && `Running on the agent${t.jobMessage ? `: ${t.jobMessage}` : ""}.`}
          {t.status === "done" && `Finished ${t.finishedAt ? formatTime(t.finishedAt) : ""}.`}
          {t.status === "failed" && (
            <>
              Failed: <span data-testid="load-test-error">{t.error}</span>
            </>
          )}
        </span>
        <span className="small muted" data-testid="load-test-generation">
          {t.generationAtStart === null
            ? "generation: not started yet"
            : `ran against generation ${t.generationAtStart}${t.planAtStart ? ` (${planText(t.planAtStart)})` : ""}`}
        </span>
        {t.report != null && (
          <button className="btn-small" type="button" onClick={download} data-testid="load-test-download">
            Report JSON
          </button>
        )}
      </section>
      {t.generationAtEnd !== null && t.generationAtStart !== null && t.generationAtEnd !== t.generationAtStart && (
        <div className="lt-banner" role="status" data-testid="load-test-reconfigured">
          <strong>Reconfigured during the run:</strong> it started on generation {t.generationAtStart} and ended on{" "}
          {t.generationAtEnd}, so its numbers mix two configurations.
        </div>
      )}

      {open && (
        <>
          <div className="summary-strip section" data-testid="load-test-tiles">
            <Tile
              label="Throughput (ok)"
              value={perS(open.okPerS)}
              sub={`offered ${perS(open.offeredPerS)} over ${open.windowS.toFixed(1)} s`}
              testId="tile-throughput"
            />
            <Tile label="p50" value={ms(open.latency.p50Ms)} sub={`mean ${ms(open.latency.meanMs)}`} />
            <Tile
              label="p99"
              value={ms(open.latency.p99Ms)}
              sub={
                t.model.sloDeadlineMs
                  ? `SLO: p${Math.round((t.model.sloQuantile ?? 0) * 100)} ≤ ${t.model.sloDeadlineMs} ms`
                  : "no SLO on the model"
              }
              testId="tile-p99"
            />
            <Tile
              label="max"
              value={ms(open.latency.maxMs)}
              sub={`p90 ${ms(open.latency.p90Ms)} · p95 ${ms(open.latency.p95Ms)}`}
            />
            <Tile
              label="Errors"
              value={String(open.counts.errors)}
              sub={`${open.counts.ok} ok of ${open.counts.intended} due · ${open.counts.dropped} dropped`}
              testId="tile-errors"
            />
          </div>
          <p className="small muted">
            Latency runs from each request&apos;s intended send time to the end of its response (no coordinated
            omission); the warm-up is left out of every figure but the timeline.
          </p>
          <section className="section">
            <h2>Latency by percentile</h2>
            <div className="panel">
              <SpectrumChart spectrum={open.spectrum} />
            </div>
          </section>
          <section className="section">
            <h2>Per second</h2>
            <div className="panel">
              <TimelineChart rows={open.timeline} />
            </div>
          </section>
          <div className="two-col section">
            <section className="section">
              <h2>Errors by class</h2>
              {open.errors.length === 0 ? (
                <p className="muted" data-testid="load-test-no-errors">
                  None: every request due was sent and answered with an inference response.
                </p>
              ) : (
                <table className="data load-tests-table" data-testid="load-test-errors">
                  <thead>
                    <tr>
                      <th>Class</th>
                      <th>Requests</th>
                    </tr>
                  </thead>
                  <tbody>
                    {open.errors.map((e) => (
                      <tr key={e.errorClass}>
                        <td>{e.errorClass}</td>
                        <td>{e.count}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
              {open.errorSamples.length > 0 && (
                <ul className="small mono">
                  {open.errorSamples.map((s) => (
                    <li key={s}>{s}</li>
                  ))}
                </ul>
              )}
            </section>
            <section className="section">
              <h2>Where the agent spent it</h2>
              {open.serverTiming.length === 0 ? (
                <p className="muted">The agent sent no Server-Timing.</p>
              ) : (
                <table className="data load-tests-table">
                  <thead>
                    <tr>
                      <th>Part (Server-Timing)</th>
                      <th>mean</th>
                      <th>p99</th>
                    </tr>
                  </thead>
                  <tbody>
                    {open.serverTiming.map((s) => (
                      <tr key={s.name}>
                        <td>{s.name}</td>
                        <td>{ms(s.meanMs)}</td>
                        <td>{ms(s.p99Ms)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </div>
        </>
      )}

      {search && t.spec.mode === "search" && (
        <>
          <div className="summary-strip section" data-testid="load-test-search-result">
            <Tile
              label={`Max rate with p99 ≤ ${t.spec.p99LimitMs} ms`}
              value={search.maxRatePerS === null ? "none" : perS(search.maxRatePerS)}
              sub={
                search.maxRatePerS === null
                  ? "even the start rate failed"
                  : search.firstFailingRatePerS === null
                    ? `never failed up to ${t.spec.maxRatePerS}/s`
                    : `first failing: ${perS(search.firstFailingRatePerS)}`
              }
              testId="tile-max-rate"
            />
            <Tile label="Steps" value={String(search.steps.length)} sub={`${t.spec.stepS} s each`} />
          </div>
          <section className="section">
            <h2>p99 at each step</h2>
            <div className="panel">
              <SearchChart steps={search.steps} limitMs={t.spec.p99LimitMs} />
            </div>
            <table className="data load-tests-table" data-testid="load-test-steps">
              <thead>
                <tr>
                  <th>Rate (req/s)</th>
                  <th>p99</th>
                  <th>ok / due</th>
                  <th>Verdict</th>
                </tr>
              </thead>
              <tbody>
                {search.steps.map((s, i) => (
                  <tr key={i}>
                    <td>{s.ratePerS.toFixed(2)}</td>
                    <td>{ms(s.p99Ms)}</td>
                    <td>
                      {s.ok} / {s.intended}
                    </td>
                    <td>
                      <span className={`badge ${s.passed ? "ok" : "bad"}`}>{s.passed ? "pass" : "fail"}</span>{" "}
                      {s.reason}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </section>
        </>
      )}
    </>
  );
}
