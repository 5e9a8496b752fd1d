"use client";
// One deployment: desired vs observed generation, its generation history, the core map, its profiles (and the form
// that starts one), live latency.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { LatencyTimelineChart } from "@/components/charts/latency-timeline-chart";
import { DeploymentProfiles } from "@/components/profiles/deployment-profiles";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";
import { DeploymentLoadTests } from "@/components/load-tests/deployment-load-tests";
import { CoreMap } from "./core-map";
import { EstimatorPanel } from "@/components/estimator/estimator-panel";

const ms = (v: number | null | undefined) => (v === null || v === undefined ? "—" : `${v.toFixed(v < 10 ? 2 : 1)} ms`);

function planSummary(plan: unknown): string {
  const p = plan as {
    instances?: Array<{ count: number; threads: number; batch: number; cpus?: string[] }>;
    batchSize?: number;
    batchTimeoutMs?: number;
  };
  const items = (p.instances ?? [])
    .map((i) => `${i.count}×⟨${i.threads} threads, b=${i.batch}⟩${i.cpus ? ` on ${i.cpus.join(" | ")}` : ""}`)
    .join(" + ");
  const B = p.batchSize ?? (p.instances ?? []).reduce((s, i) => s + i.count * i.batch, 0);
  return `${items}; B = ${B}, timeout ${p.batchTimeoutMs ?? 0} ms`;
}

export function DeploymentView({
  id,
  canManage,
  canProfile = false,
}: {
  id: string;
  canManage: boolean;
  canProfile?: boolean;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const deployment = useQuery(trpc.deployments.get.queryOptions({ id }, { refetchInterval: 5000 }));
  const timeline = useQuery(trpc.deployments.timeline.queryOptions({ id }, { refetchInterval: 15000 }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.deployments.get.queryKey({ id }) });
  const changeVersion = useMutation(
    trpc.deployments.changeVersion.mutationOptions({ onSuccess: () => void refresh() }),
  );
  const undeploy = useMutation(trpc.deployments.undeploy.mutationOptions({ onSuccess: () => router.push("/agents") }));
  // Rollback (SREs): a new generation copying an earlier applied one; generations only increase.
  const rollback = useMutation(trpc.proposals.rollback.mutationOptions({ onSuccess: () => void refresh() }));
  if (deployment.isPending) return <p className="muted">Loading…</p>;
  if (deployment.error) return <div className="error-box">{deployment.error.message}</div>;
  const d = deployment.data;
  return (
    <>
      <h1>
        {d.model.name} v{d.model.version} on {d.agent.hostName}
      </h1>
      <p className="subtitle">
        {d.model.syntheticWeights && (
          <span className="badge warn" style={{ marginRight: 8 }}>
            synthetic weights
          </span>
        )}
        Core budget CPUs {d.cpus.join(", ")}
        {d.removed ? " · removed" : ""}
      </p>
      {[changeVersion.error, undeploy.error].filter(Boolean).map((e, i) => (
        <div key={i} className="error-box" role="alert" style={{ marginBottom: 12 }}>
          {e!.message}
        </div>
      ))}
      <div className="cards section">
        <div className="card" data-testid="generation-card">
          <h2>Generation</h2>
          <dl className="kv">
            <dt>Desired</dt>
            <dd data-testid="desired-generation">{d.generation}</dd>
            <dt>Observed</dt>
            <dd data-testid="observed-generation">{d.observedGeneration}</dd>
            <dt>State</dt>
            <dd>
              <span className={`badge ${d.state === "serving" ? "ok" : d.state === "failed" ? "bad" : "warn"}`}>
                {d.state}
              </span>
            </dd>
            {d.failureReason && (
              <>
                <dt>Reason</dt>
                <dd>{d.failureReason}</dd>
              </>
            )}
          </dl>
        </div>
        <div className="card">
          <h2>Last 5 minutes</h2>
          <dl className="kv">
            <dt>Rate</dt>
            <dd>{d.live.ratePerS.toFixed(1)} requests/s</dd>
            <dt>p50</dt>
            <dd>{ms(d.live.p50Ms)}</dd>
            <dt>p99</dt>
            <dd>{ms(d.live.p99Ms)}</dd>
            <dt>Rejected</dt>
            <dd>{d.live.rejected}</dd>
            <dt>Within SLO</dt>
            <dd>
              {!d.slo ? (
                <span className="muted">no SLO set on the model</span>
              ) : d.live.withinSloShare === null ? (
                "—"
              ) : (
                `${(d.live.withinSloShare * 100).toFixed(1)}% (≤ ${d.slo.deadlineMs} ms)`
              )}
            </dd>
          </dl>
        </div>
        {canManage && !d.removed && (
          <div className="card">
            <h2>Actions</h2>
            <form
              onSubmit={(e) => {
                e.preventDefault();
                changeVersion.mutate({
                  deploymentId: d.id,
                  modelVersionId: String(new FormData(e.currentTarget).get("version")),
                });
              }}
              className="form"
            >
              <label className="form-field">
                <span>Change version (active-passive)</span>
                <select name="version" defaultValue={d.model.versionId}>
                  {d.versions.map((v) => (
                    <option key={v.id} value={v.id}>
                      v{v.number}
                    </option>
                  ))}
                </select>
              </label>
              <div style={{ display: "flex", gap: 8 }}>
                <button className="btn primary" type="submit" disabled={changeVersion.isPending}>
                  Switch version
                </button>
                <button
                  className="btn danger"
                  type="button"
                  disabled={undeploy.isPending}
                  onClick={() => {
                    if (confirm("Undeploy? Queued requests finish first.")) undeploy.mutate({ deploymentId: d.id });
                  }}
                >
                  Undeploy
                </button>
              </div>
            </form>
          </div>
        )}
      </div>
      <section className="section">
        <h2>Cores</h2>
        <CoreMap
          topology={d.agent.topology}
          allowedCpus={d.agent.allowedCpus}
          deployments={[
            { id: d.id, label: `${d.model.name} v${d.model.version}`, cpus: d.cpus, instances: d.instances },
          ]}
        />
      </section>
      <section className="section">
        <h2>Profiles</h2>
        <DeploymentProfiles deploymentId={d.id} canProfile={canProfile && !d.removed} />
      </section>
      <section className="section">
        <h2>Latency and rate, last hour</h2>
        <div className="panel">
          <LatencyTimelineChart
            points={(timeline.data ?? []).map((p) => ({
              ...p,
              minute: new Date(p.minute).toISOString().slice(11, 16),
            }))}
          />
        </div>
      </section>
      <section className="section">
        <h2>Load tests</h2>
        <DeploymentLoadTests deploymentId={d.id} canStart={!d.removed} />
      </section>
      <section className="section">
        <h2>Batch-size estimator</h2>
        <EstimatorPanel deploymentId={d.id} canDecide={canManage && !d.removed} />
      </section>
      <section className="section">
        <h2>Generation history</h2>
        {rollback.error && (
          <div className="error-box" role="alert" style={{ marginBottom: 12 }}>
            {rollback.error.message}
          </div>
        )}
        <div className="table-wrap">
          <table className="data" data-testid="generation-history">
            <thead>
              <tr>
                <th>Gen.</th>
                <th>Configuration</th>
                <th>Why</th>
                <th>Who, when</th>
                <th>Outcome</th>
                {canManage && (
                  <th>
                    <span className="visually-hidden">Roll back</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {d.history.map((g) => (
                <tr key={g.generation}>
                  <td className="gen">{g.generation}</td>
                  <td className="small">{planSummary(g.plan)}</td>
                  <td>{g.label}</td>
                  <td className="small">
                    <div>{g.createdBy ?? "system"}</div>
                    <div className="muted nowrap">{formatTime(g.createdAt)}</div>
                  </td>
                  <td>
                    {g.outcome ? (
                      <span
                        className={`badge ${g.outcome === "applied" ? "ok" : "bad"}`}
                        title={g.failureReason ?? undefined}
                      >
                        {g.outcome}
                      </span>
                    ) : (
                      <span className="muted">pending</span>
                    )}
                  </td>
                  {canManage && (
                    <td>
                      {g.outcome === "applied" && g.generation !== d.generation && !d.removed && (
                        <button
                          type="button"
                          className="btn small"
                          data-testid="rollback"
                          disabled={rollback.isPending}
                          onClick={() => {
                            if (
                              confirm(
                                `Roll back to generation ${g.generation}? This writes generation ${d.generation + 1}, a copy of its configuration, and the agent switches to it.`,
                              )
                            )
                              rollback.mutate({ deploymentId: d.id, toGeneration: g.generation });
                          }}
                        >
                          Roll back to this
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
