"use client";
// The deployment page's Profiles section: this deployment's profiles with their status and live progress, links to
// each, and (for ML engineers) the form that starts a new one.
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { formatTime } from "@/components/format-time";
import { useTRPC } from "@/trpc/react";
import { describeGrid } from "./profile-form-data";
import { ProfileCreateForm } from "./profile-create-form";
import { isActive } from "./profile-grid-data";
import { ProgressBar, statusBadgeClass } from "./profile-parts";
import "./profiles.css";

export function DeploymentProfiles({ deploymentId, canProfile }: { deploymentId: string; canProfile: boolean }) {
  const trpc = useTRPC();
  const query = useQuery(
    trpc.profiles.forDeployment.queryOptions(
      { deploymentId },
      {
        refetchInterval: (q) => (q.state.data?.profiles.some((p) => isActive(p.status)) ? 1500 : 15_000),
      },
    ),
  );
  if (query.isPending) return <p className="muted">Loading profiles…</p>;
  if (query.error) return <div className="error-box">{query.error.message}</div>;
  const d = query.data;
  return (
    <div data-testid="deployment-profiles">
      {d.profiles.length === 0 ? (
        <p className="muted" style={{ fontSize: 14, marginTop: 0 }} data-testid="deployment-profiles-empty">
          No profiles of this deployment yet. A profile measures {d.modelName}&apos;s latency over threads × batch size
          inside this deployment&apos;s {d.cores} core{d.cores === 1 ? "" : "s"}; the optimizer plans from it.
          {!canProfile && " ML engineers start them here."}
        </p>
      ) : (
        <div className="table-wrap" style={{ marginBottom: 14 }}>
          <table className="data" data-testid="deployment-profiles-table">
            <thead>
              <tr>
                <th>Started</th>
                <th>Version</th>
                <th>Grid</th>
                <th>Rule</th>
                <th>Status</th>
                <th>Progress</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {d.profiles.map((p) => {
                const percent = p.cellsTotal ? Math.floor((p.cellsDone / p.cellsTotal) * 100) : 0;
                return (
                  <tr key={p.id} data-profile={p.id}>
                    <td className="nowrap small">{formatTime(p.createdAt)}</td>
                    <td>v{p.version}</td>
                    <td className="small">{describeGrid(p.threads, p.batches)}</td>
                    <td className="small">
                      {p.rule === "fixed"
                        ? "paper 10 + 100"
                        : p.rule === "decision"
                          ? "decision-aware"
                          : "precision 2%"}
                    </td>
                    <td>
                      <span className={`badge ${statusBadgeClass(p.status)}`} title={p.error ?? undefined}>
                        {p.status}
                      </span>
                      {p.perturbed && (
                        <span
                          className="badge warn"
                          style={{ marginLeft: 6 }}
                          title={`${p.perturbedRatePerS ?? "?"} requests/s while measuring`}
                        >
                          perturbed
                        </span>
                      )}
                    </td>
                    <td style={{ minWidth: 150 }}>
                      <ProgressBar
                        percent={percent}
                        label={`Cells measured of profile started ${formatTime(p.createdAt)}`}
                        small
                      />
                      <div className="muted small">
                        {p.cellsDone} / {p.cellsTotal} cells
                      </div>
                    </td>
                    <td className="actions">
                      <Link href={`/profiles/${p.id}`}>Open</Link>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {canProfile && <ProfileCreateForm deploymentId={deploymentId} data={d} />}
    </div>
  );
}
