"use client";
// One profile: live progress while the job runs (polled every second: the bar and the heatmap fill in without a
// reload), then the heatmaps, the thread- and batch-scaling charts and every cell; banners for a perturbed or stale
// profile; CSV export for the optimizer CLI; a comparison with another profile of the same model.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { formatTime } from "@/components/format-time";
import { formatFixed } from "@/lib/planning/format";
import { useTRPC } from "@/trpc/react";
import { ProfileCellsTable } from "./profile-cells-table";
import { ProfileCharts } from "./profile-charts";
import { profileCsv, profileCsvFileName } from "./profile-csv-data";
import { isActive, isSettling, progressView } from "./profile-grid-data";
import { LatencyHeatmap, SpreadHeatmap } from "./profile-heatmaps";
import { describeDims, describeRule, downloadText, ProgressBar, statusBadgeClass } from "./profile-parts";
import type { ProfileData } from "./profile-types";
import "./profiles.css";

function StaleBanner({ profile }: { profile: ProfileData }) {
  const trpc = useTRPC();
  const deploymentId = profile.deploymentId;
  const compat = useQuery(
    trpc.profiles.compatibility.queryOptions(
      { profileId: profile.id, deploymentId: deploymentId ?? "" },
      { enabled: !!deploymentId, refetchInterval: 30_000, retry: false },
    ),
  );
  const deployment = useQuery(
    trpc.deployments.get.queryOptions({ id: deploymentId ?? "" }, { enabled: !!deploymentId, retry: false }),
  );
  if (!deploymentId) return null;
  if (compat.error) {
    return (
      <div className="banner warn" data-testid="stale-banner" role="status">
        <strong>Its deployment is gone.</strong> This profile was measured for a deployment that no longer exists (
        {compat.error.message}); check it matches where you plan to use it.
      </div>
    );
  }
  // Completeness has its own line above; the banner is about the deployment having moved on.
  const differences = (compat.data?.differences ?? []).filter((d) => d.field !== "completeness");
  if (differences.length === 0) return null;
  const versionName = (id: string) => deployment.data?.versions.find((v) => v.id === id)?.number;
  const show = (field: string, value: string) =>
    field === "model version" && versionName(value) !== undefined ? `v${versionName(value)}` : value;
  return (
    <div className="banner warn" data-testid="stale-banner" role="status">
      <strong>Stale profile:</strong> its deployment
      {deployment.data ? ` (${deployment.data.model.name} on ${deployment.data.agent.hostName})` : ""} has moved on, so
      the optimizer will not plan from it for that deployment.
      <ul>
        {differences.map((d) => (
          <li key={d.field}>
            {d.field}: measured with <strong>{show(d.field, d.profile)}</strong>, the deployment now has{" "}
            <strong>{show(d.field, d.deployment)}</strong>
          </li>
        ))}
      </ul>
      Profile it again from the <Link href={`/deployments/${deploymentId}`}>deployment page</Link>.
    </div>
  );
}

function ComparePicker({ profile }: { profile: ProfileData }) {
  const trpc = useTRPC();
  const router = useRouter();
  const list = useQuery(trpc.profiles.listForModel.queryOptions({ modelId: profile.model.id }));
  const others = (list.data ?? []).filter((p) => p.id !== profile.id && p.cellsDone > 0);
  const [choice, setChoice] = useState("");
  const selected = choice || others[0]?.id || "";
  if (list.isPending) return null;
  if (others.length === 0)
    return (
      <span className="muted small" data-testid="compare-none">
        No other profile of {profile.model.name} with measured cells to compare with yet.
      </span>
    );
  return (
    <form
      className="compare-picker"
      data-testid="compare-picker"
      onSubmit={(e) => {
        e.preventDefault();
        router.push(`/profiles/compare?a=${profile.id}&b=${selected}`);
      }}
    >
      <label className="form-field">
        <span>Compare with</span>
        <select value={selected} onChange={(e) => setChoice(e.target.value)} data-testid="compare-select">
          {others.map((p) => (
            <option key={p.id} value={p.id}>
              v{p.version} · {p.status} · {p.cellsDone}/{p.cellsTotal} cells · T={p.cores} · {formatTime(p.createdAt)}
            </option>
          ))}
        </select>
      </label>
      <button className="btn" type="submit">
        Compare
      </button>
    </form>
  );
}

export function ProfileView({
  id,
  currentUserId,
  mayDeleteAny,
}: {
  id: string;
  currentUserId: string;
  mayDeleteAny: boolean;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const query = useQuery(
    trpc.profiles.get.queryOptions(
      { id },
      {
        refetchInterval: (q) =>
          q.state.data && isSettling(q.state.data.status, q.state.data.finishedAt) ? 1000 : false,
      },
    ),
  );
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.profiles.get.queryKey({ id }) });
  const cancel = useMutation(trpc.profiles.cancel.mutationOptions({ onSuccess: () => void refresh() }));
  const remove = useMutation(
    trpc.profiles.delete.mutationOptions({
      onSuccess: () => router.push(query.data?.deploymentId ? `/deployments/${query.data.deploymentId}` : "/"),
    }),
  );
  if (query.isPending) return <p className="muted">Loading…</p>;
  if (query.error)
    return (
      <div className="error-box" role="alert">
        {query.error.message}
      </div>
    );
  const p = query.data;
  const grid = { threads: p.threads, batches: p.batches };
  const active = isActive(p.status);
  const progress = progressView({ status: p.status, grid, cells: p.cells, etaMs: p.etaMs, jobError: p.job?.error });
  const hasCells = p.cells.length > 0;

  return (
    <>
      <h1 data-testid="profile-title">
        Profile of {p.model.name} v{p.model.version} on {p.agent.hostName}
      </h1>
      <p className="subtitle" data-testid="profile-conditions">
        {p.model.syntheticWeights && (
          <span className="badge warn" style={{ marginRight: 8 }}>
            synthetic weights
          </span>
        )}
        {p.hardwareClass} · {p.runtimeSignature} · core budget T = {p.cores} · input: {describeDims(p.dimensions)} ·{" "}
        {describeRule(p.stoppingRule)} · started {formatTime(p.createdAt)}
        {p.deploymentId && (
          <>
            {" "}
            · <Link href={`/deployments/${p.deploymentId}`}>its deployment</Link>
          </>
        )}
      </p>

      {[cancel.error, remove.error].filter(Boolean).map((e, i) => (
        <div key={i} className="error-box" role="alert" style={{ marginBottom: 12 }}>
          {e!.message}
        </div>
      ))}
      {p.perturbed && (
        <div className="banner warn" data-testid="perturbed-banner" role="status">
          <strong>Perturbed:</strong> the deployment was serving{" "}
          {p.perturbedRatePerS === null ? "traffic" : `${formatFixed(p.perturbedRatePerS, 1)} requests/s`} while this
          profile was measured, so its latencies may be higher than on an idle host. The optimizer warns when it plans
          from it.
        </div>
      )}
      <StaleBanner profile={p} />
      {p.cells.length > 0 && (
        <div
          className={`banner ${p.quality.verdict === "clean" ? "ok" : p.quality.verdict === "unknown" ? "info" : "warn"}`}
          data-testid="profile-verdict"
          role="status"
        >
          <strong>Measurement quality:</strong> {p.quality.summary}.{" "}
          {p.measuredOn.placement === "free"
            ? `Measured on free CPUs ${p.measuredOn.cpus.join(", ")}, outside every deployment's budget.`
            : "Measured on the deployment's serving cores."}
        </div>
      )}

      <section className="panel section profile-progress" data-testid="profile-progress">
        <div className="progress-head">
          <span className={`badge ${statusBadgeClass(p.status)}`} data-testid="profile-status">
            {p.status}
          </span>
          <span data-testid="profile-headline">{progress.headline}</span>
        </div>
        <ProgressBar percent={progress.percent} label="Cells measured" testId="profile-progress-bar" />
        <div className="progress-meta">
          <span data-testid="profile-cells-count">
            {progress.done} / {progress.total} cells · {progress.percent}%
          </span>
          {active && p.job?.message && <span data-testid="profile-job-message">{p.job.message}</span>}
          {p.job && p.job.attempts > 1 && <span>attempt {p.job.attempts} (resumed at the first missing cell)</span>}
          {p.finishedAt && <span>finished {formatTime(p.finishedAt)}</span>}
        </div>
        {progress.missingNote && (
          <p className="missing-note" data-testid="profile-missing">
            {progress.missingNote}
          </p>
        )}
        <div className="profile-actions">
          <button
            className="btn"
            type="button"
            data-testid="profile-csv"
            disabled={!hasCells}
            title={hasCells ? "threads,batch,latency_ms,… for npm run packrat -- optimize" : "No cell measured yet"}
            onClick={() =>
              downloadText(
                profileCsvFileName({
                  id: p.id,
                  modelName: p.model.name,
                  version: p.model.version,
                  hostName: p.agent.hostName,
                }),
                profileCsv(p.cells),
              )
            }
          >
            Export CSV
          </button>
          {active && (
            <button
              className="btn danger"
              type="button"
              disabled={cancel.isPending}
              onClick={() => {
                if (
                  confirm(
                    "Cancel this profiling job? Finished cells are kept, and cells still measuring are kept cut short (from the rounds measured so far).",
                  )
                )
                  cancel.mutate({ profileId: p.id });
              }}
            >
              Cancel job
            </button>
          )}
          {!active && (mayDeleteAny || p.createdById === currentUserId) && (
            <button
              className="btn danger"
              type="button"
              disabled={remove.isPending}
              onClick={() => {
                if (confirm("Delete this profile and its cells?")) remove.mutate({ profileId: p.id });
              }}
            >
              Delete profile
            </button>
          )}
          <span className="spacer" />
          {hasCells && <ComparePicker profile={p} />}
        </div>
        {hasCells && (
          <p className="muted small csv-hint">
            The CSV feeds the optimizer:{" "}
            <code>npm run -s packrat -- optimize --profile FILE.csv --cores {p.cores} --batch B</code>
          </p>
        )}
      </section>

      <section className="section">
        <h2>Latency over threads × batch size</h2>
        <div className="panel">
          <LatencyHeatmap
            grid={grid}
            cells={p.cells}
            current={progress.current}
            active={active}
            testId="profile-heatmap"
          />
          {!hasCells && (
            <p className="muted small" data-testid="profile-empty">
              {active
                ? "No cell is measured yet: cells appear here as the agent reports them."
                : "This profile has no measured cell."}
            </p>
          )}
        </div>
      </section>

      {hasCells && (
        <>
          <section className="section">
            <h2>Where threads stop paying, and what batching buys</h2>
            <ProfileCharts grid={grid} cells={p.cells} />
          </section>
          <section className="section">
            <h2>Noise: p99 ÷ mean per cell</h2>
            <div className="panel">
              <SpreadHeatmap grid={grid} cells={p.cells} active={active} testId="profile-spread" />
              <p className="muted small">
                A cell far above 1× had stragglers (another process, frequency changes, page faults); its mean is less
                trustworthy than its neighbours&apos;.
              </p>
            </div>
          </section>
          <section className="section">
            <h2>
              Cells ({p.cells.length} of {progress.total})
            </h2>
            <ProfileCellsTable cells={p.cells} testId="profile-cells" />
          </section>
        </>
      )}
    </>
  );
}
