"use client";
// Two profiles side by side: what differs in how they were measured, the ratio L_B / L_A per cell on a diverging
// heatmap (white = the same, blue = B faster, red = B slower), both latency heatmaps on one shared colour scale,
// and the cells in a table.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { Heatmap } from "@/components/charts/heatmap";
import { divergingRatioScale } from "@/components/charts/heatmap-scale";
import { formatTime } from "@/components/format-time";
import { formatMs, formatSig } from "@/lib/planning/format";
import { useTRPC } from "@/trpc/react";
import { compareProfiles, describeRatio, type ComparedProfile } from "./profile-compare-data";
import { cellKey, describeCells } from "./profile-grid-data";
import { latencyScale, LatencyHeatmap } from "./profile-heatmaps";
import type { ProfileData } from "./profile-types";
import { statusBadgeClass } from "./profile-parts";
import "./profiles.css";

function asCompared(p: ProfileData, label: string): ComparedProfile {
  return {
    id: p.id,
    label,
    model: { name: p.model.name, version: p.model.version },
    hostName: p.agent.hostName,
    hardwareClass: p.hardwareClass,
    runtimeSignature: p.runtimeSignature,
    cores: p.cores,
    dimensions: p.dimensions,
    stoppingRule: p.stoppingRule,
    perturbed: p.perturbed,
    perturbedRatePerS: p.perturbedRatePerS,
    status: p.status,
    threads: p.threads,
    batches: p.batches,
    cells: p.cells,
  };
}

const title = (p: ProfileData) => `${p.model.name} v${p.model.version} on ${p.agent.hostName}`;

export function ProfileCompareView({ a, b }: { a: string; b: string }) {
  const trpc = useTRPC();
  const qa = useQuery(
    trpc.profiles.get.queryOptions(
      { id: a },
      {
        refetchInterval: (q) =>
          q.state.data && (q.state.data.status === "running" || q.state.data.status === "queued") ? 2000 : false,
      },
    ),
  );
  const qb = useQuery(
    trpc.profiles.get.queryOptions(
      { id: b },
      {
        refetchInterval: (q) =>
          q.state.data && (q.state.data.status === "running" || q.state.data.status === "queued") ? 2000 : false,
      },
    ),
  );
  if (qa.isPending || qb.isPending) return <p className="muted">Loading…</p>;
  if (qa.error || qb.error)
    return (
      <div className="error-box" role="alert">
        {(qa.error ?? qb.error)!.message}
      </div>
    );
  const pa = qa.data;
  const pb = qb.data;
  const c = compareProfiles(asCompared(pa, "A"), asCompared(pb, "B"));
  const ratioAt = new Map(c.cells.map((x) => [cellKey(x.threads, x.batch), x]));
  const shared = latencyScale(pa.cells, pb.cells);

  return (
    <>
      <h1>Compare profiles</h1>
      <p className="subtitle">
        A:{" "}
        <Link href={`/profiles/${pa.id}`} data-testid="compare-link-a">
          {title(pa)}
        </Link>{" "}
        ({formatTime(pa.createdAt)}) · B:{" "}
        <Link href={`/profiles/${pb.id}`} data-testid="compare-link-b">
          {title(pb)}
        </Link>{" "}
        ({formatTime(pb.createdAt)}) · <Link href={`/profiles/compare?a=${pb.id}&b=${pa.id}`}>swap A and B</Link>
      </p>

      <div className="summary-strip section" data-testid="compare-summary">
        <div className="summary-tile">
          <div className="summary-label">
            B vs A, geometric mean over {c.cells.length} common cell{c.cells.length === 1 ? "" : "s"}
          </div>
          <div className="summary-value">{c.summary ? `${formatSig(c.summary.geometricMean, 3)}×` : "—"}</div>
          <div className="summary-sub">
            {c.summary
              ? `B is ${describeRatio(c.summary.geometricMean)} on average`
              : "No cell was measured in both profiles."}
          </div>
        </div>
        <div className="summary-tile">
          <div className="summary-label">Range of L_B / L_A</div>
          <div className="summary-value">
            {c.summary ? `${formatSig(c.summary.min, 3)}× – ${formatSig(c.summary.max, 3)}×` : "—"}
          </div>
          <div className="summary-sub">
            {c.summary ? `B faster in ${c.summary.bFaster}, slower in ${c.summary.aFaster} of ${c.cells.length}` : "—"}
          </div>
        </div>
      </div>

      <section className="section">
        <h2>Conditions</h2>
        <div className="table-wrap">
          <table className="data" data-testid="compare-conditions">
            <thead>
              <tr>
                <th>What</th>
                <th>A</th>
                <th>B</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {c.conditions.map((x) => (
                <tr key={x.field} className={x.differs ? "differs" : undefined} data-field={x.field}>
                  <td>{x.field}</td>
                  <td>
                    {x.field === "status" ? <span className={`badge ${statusBadgeClass(x.a)}`}>{x.a}</span> : x.a}
                  </td>
                  <td>
                    {x.field === "status" ? <span className={`badge ${statusBadgeClass(x.b)}`}>{x.b}</span> : x.b}
                  </td>
                  <td>
                    {x.differs ? (
                      <span className="badge warn">differs</span>
                    ) : (
                      <span className="muted small">same</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      <section className="section">
        <h2>Ratio per cell: L_B ÷ L_A</h2>
        <div className="panel">
          <Heatmap
            testId="compare-ratio-heatmap"
            rows={c.threads}
            cols={c.batches}
            value={(t, bb) => ratioAt.get(cellKey(t, bb))?.ratio ?? null}
            scale={c.cells.length ? divergingRatioScale(c.cells.map((x) => x.ratio)) : null}
            xLabel="batch size b (samples per batch)"
            yLabel="intra-op threads t"
            formatRow={(t) => `t = ${t}`}
            formatCell={(v) => `${formatSig(v, 3)}×`}
            formatLegend={(v) => `${formatSig(v, 3)}×`}
            legendLabel="L_B ÷ L_A (below 1×: B faster; log colour scale)"
            tooltip={(t, bb) => {
              const x = ratioAt.get(cellKey(t, bb));
              const head = `t = ${t} threads, b = ${bb}`;
              if (!x) return [head, "not measured in both profiles"];
              return [
                head,
                `A ${formatMs(x.aMs)} · B ${formatMs(x.bMs)}`,
                `B / A = ${formatSig(x.ratio, 4)}×: B is ${describeRatio(x.ratio)}`,
              ];
            }}
            missingLabel="not in both"
            emptyLegend="No cell was measured in both profiles."
          />
          {(c.onlyA.length > 0 || c.onlyB.length > 0) && (
            <p className="muted small" data-testid="compare-only">
              {c.onlyA.length > 0 && <>Only in A: {describeCells(c.onlyA)}. </>}
              {c.onlyB.length > 0 && <>Only in B: {describeCells(c.onlyB)}.</>}
            </p>
          )}
        </div>
      </section>

      <section className="section">
        <h2>Side by side (one colour scale)</h2>
        <div className="compare-grid">
          {[
            { p: pa, key: "a", label: "A" },
            { p: pb, key: "b", label: "B" },
          ].map(({ p, key, label }) => (
            <div className="panel" key={key}>
              <h3>
                {label}: {title(p)} <span className={`badge ${statusBadgeClass(p.status)}`}>{p.status}</span>
              </h3>
              <LatencyHeatmap
                grid={{ threads: p.threads, batches: p.batches }}
                cells={p.cells}
                scale={shared}
                active={p.status === "running" || p.status === "queued"}
                testId={`compare-heatmap-${key}`}
                maxWidth={330}
              />
            </div>
          ))}
        </div>
      </section>

      <section className="section">
        <h2>Cells in both</h2>
        {c.cells.length === 0 ? (
          <p className="muted">No cell was measured in both profiles, so there is nothing to compare cell by cell.</p>
        ) : (
          <div className="table-wrap">
            <table className="data compare-cells" data-testid="compare-table">
              <thead>
                <tr>
                  <th className="num">t</th>
                  <th className="num">b</th>
                  <th className="num">A mean</th>
                  <th className="num">B mean</th>
                  <th className="num">B ÷ A</th>
                  <th>reading</th>
                </tr>
              </thead>
              <tbody>
                {c.cells.map((x) => (
                  <tr key={`${x.threads}x${x.batch}`} data-cell={`${x.threads}x${x.batch}`}>
                    <td className="num">{x.threads}</td>
                    <td className="num">{x.batch}</td>
                    <td className="num">{formatMs(x.aMs)}</td>
                    <td className="num">{formatMs(x.bMs)}</td>
                    <td className="num">{formatSig(x.ratio, 4)}×</td>
                    <td>B is {describeRatio(x.ratio)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
