"use client";
// The Agents page body: every agent with its liveness, core map and deployments; SREs deploy, undeploy and
// decommission here, and manage enrollment tokens. ML engineers read.
import Link from "next/link";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { CoreMap } from "./core-map";

const ms = (v: number | null | undefined) =>
  v === null || v === undefined ? "—" : v < 10 ? `${v.toFixed(2)} ms` : `${v.toFixed(1)} ms`;

function age(msAgo: number | null): string {
  if (msAgo === null) return "never";
  if (msAgo < 60_000) return `${Math.round(msAgo / 1000)} s ago`;
  if (msAgo < 3_600_000) return `${Math.round(msAgo / 60_000)} min ago`;
  return `${Math.round(msAgo / 3_600_000)} h ago`;
}

export function AgentsView({ canManage }: { canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const agents = useQuery(trpc.agents.list.queryOptions(undefined, { refetchInterval: 5000 }));
  const versions = useQuery(trpc.deployments.versions.queryOptions(undefined, { enabled: canManage }));
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.agents.list.queryKey() });
  const deploy = useMutation(trpc.deployments.deploy.mutationOptions({ onSuccess: () => void refresh() }));
  const undeploy = useMutation(trpc.deployments.undeploy.mutationOptions({ onSuccess: () => void refresh() }));
  const decommission = useMutation(trpc.agents.decommission.mutationOptions({ onSuccess: () => void refresh() }));
  const [picked, setPicked] = useState<Record<string, number[]>>({});

  if (agents.isPending) return <p className="muted">Loading…</p>;
  if (agents.error) return <div className="error-box">{agents.error.message}</div>;
  if (agents.data.length === 0) {
    return (
      <div className="panel" data-testid="no-agents">
        No agent has registered yet. Create a token below and start one with the command shown.
      </div>
    );
  }
  return (
    <>
      {[deploy.error, undeploy.error, decommission.error].filter(Boolean).map((e, i) => (
        <div key={i} className="error-box" role="alert" style={{ marginBottom: 12 }}>
          {e!.message}
        </div>
      ))}
      {agents.data.map((agent) => {
        const used = new Set(agent.deployments.flatMap((d) => d.cpus));
        const free = agent.allowedCpus.filter((c) => !used.has(c));
        const chosen = picked[agent.id] ?? free;
        return (
          <section className="agent-card" key={agent.id} data-testid="agent-card" data-host={agent.hostName}>
            <header>
              <h2>{agent.hostName}</h2>
              <span className={`badge ${agent.online ? "ok" : "bad"}`} data-testid="agent-online">
                {agent.online ? "online" : "offline"}
              </span>
              <span className="agent-meta">
                <span>heartbeat {age(agent.heartbeatAgeMs)}</span>
                <span>agent {agent.agentVersion}</span>
                <span>ONNX Runtime {agent.ortVersion}</span>
                <span>
                  {agent.summary.sockets} socket{agent.summary.sockets > 1 ? "s" : ""} · {agent.summary.physicalCores}{" "}
                  cores · {agent.summary.logicalCpus} CPUs
                </span>
                <span title={agent.cpuModel}>{agent.cpuModel.slice(0, 40)}</span>
                {agent.cpuBusyFraction !== null && (
                  <span>host CPU {(agent.cpuBusyFraction * 100).toFixed(0)}% busy</span>
                )}
                <span>serving restarts {agent.servingProcessRestarts}</span>
                {agent.inferenceUrl && <span className="mono">{agent.inferenceUrl}</span>}
              </span>
            </header>
            <CoreMap
              topology={agent.topology}
              allowedCpus={agent.allowedCpus}
              deployments={agent.deployments.map((d) => ({
                id: d.id,
                label: `${d.modelName} v${d.version}`,
                cpus: d.cpus,
                instances: d.instances,
              }))}
            />
            <p className="small contention-line" data-testid="agent-contention">
              <strong>Contention on this host:</strong>{" "}
              {agent.contention.observations === 0 ? (
                "no plan trial has run here yet, so predictions are the profile's own (each instance timed alone)."
              ) : (
                <>
                  from {agent.contention.observations} plan-trial measurements, a plan&apos;s slowest instance runs{" "}
                  {agent.contention.contention.intercept.toFixed(3)}× its profiled time when alone,{" "}
                  {agent.contention.contention.slope >= 0 ? "+" : "−"}
                  {Math.abs(agent.contention.contention.slope).toFixed(3)}× per share of the cores its other instances
                  keep busy; the agent adds {agent.contention.overhead.intercept.toFixed(3)} ms per batch (dispatch,
                  split, hand-off, merge) {agent.contention.overhead.slope >= 0 ? "+" : "−"}{" "}
                  {Math.abs(agent.contention.overhead.slope).toFixed(3)} ms per extra instance. Later predictions are
                  corrected by it
                  {agent.contention.rmsRelativeError !== null
                    ? ` (RMS error on these measurements ${(100 * agent.contention.rmsRelativeError).toFixed(1)}%)`
                    : ""}
                  .
                </>
              )}
            </p>
            {agent.deployments.length === 0 ? (
              <p className="muted">No deployments on this agent.</p>
            ) : (
              <div className="table-wrap">
                <table className="data" data-testid="deployments-table">
                  <thead>
                    <tr>
                      <th>Model</th>
                      <th>Core budget</th>
                      <th>Generation (desired / observed)</th>
                      <th>State</th>
                      <th>Rate</th>
                      <th>p50</th>
                      <th>p99</th>
                      <th>Instances</th>
                      <th />
                    </tr>
                  </thead>
                  <tbody>
                    {agent.deployments.map((d) => (
                      <tr key={d.id} data-model={d.modelName}>
                        <td>
                          <Link href={`/deployments/${d.id}`}>
                            {d.modelName} v{d.version}
                          </Link>
                          {d.syntheticWeights && <div className="muted small">synthetic weights</div>}
                        </td>
                        <td className="mono">{d.cpus.join(", ")}</td>
                        <td className="gen" data-testid="generation">
                          {d.generation} / {d.observedGeneration}
                        </td>
                        <td>
                          <span
                            className={`badge ${d.state === "serving" ? "ok" : d.state === "failed" ? "bad" : "warn"}`}
                            title={d.failureReason ?? undefined}
                          >
                            {d.state}
                          </span>
                        </td>
                        <td className="nowrap">{d.live.ratePerS.toFixed(1)} /s</td>
                        <td className="nowrap">{ms(d.live.p50Ms)}</td>
                        <td className="nowrap">{ms(d.live.p99Ms)}</td>
                        <td className="nowrap">
                          {d.instances.length ? d.instances.map((i) => `${i.threads}t·b${i.batch}`).join(", ") : "—"}
                        </td>
                        <td className="actions">
                          {canManage && (
                            <button
                              type="button"
                              className="btn small danger"
                              disabled={undeploy.isPending}
                              onClick={() => {
                                if (
                                  confirm(
                                    `Undeploy ${d.modelName} from ${agent.hostName}? Queued requests finish first.`,
                                  )
                                )
                                  undeploy.mutate({ deploymentId: d.id });
                              }}
                            >
                              Undeploy
                            </button>
                          )}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
            {canManage && (
              <form
                className="deploy-form"
                onSubmit={(e) => {
                  e.preventDefault();
                  const versionId = String(new FormData(e.currentTarget).get("version"));
                  deploy.mutate({ agentId: agent.id, modelVersionId: versionId, cpus: chosen });
                }}
              >
                <label className="form-field">
                  <span>Deploy a model version</span>
                  <select name="version" required defaultValue="">
                    <option value="" disabled>
                      {versions.data?.length ? "choose…" : "no models registered yet"}
                    </option>
                    {versions.data?.map((v) => (
                      <option key={v.id} value={v.id}>
                        {v.modelName} v{v.number}
                        {v.syntheticWeights ? " (synthetic weights)" : ""}
                      </option>
                    ))}
                  </select>
                </label>
                <div className="form-field">
                  <span>Core budget (free CPUs)</span>
                  <div className="cpu-picks">
                    {free.length === 0 && <span className="muted">every usable CPU is in a budget</span>}
                    {free.map((cpu) => (
                      <label key={cpu}>
                        <input
                          type="checkbox"
                          checked={chosen.includes(cpu)}
                          onChange={(e) =>
                            setPicked({
                              ...picked,
                              [agent.id]: e.target.checked
                                ? [...chosen, cpu].sort((a, b) => a - b)
                                : chosen.filter((c) => c !== cpu),
                            })
                          }
                        />
                        CPU {cpu}
                      </label>
                    ))}
                  </div>
                </div>
                <div style={{ display: "flex", gap: 8 }}>
                  <button
                    type="submit"
                    className="btn primary"
                    disabled={deploy.isPending || chosen.length === 0}
                    aria-describedby={chosen.length === 0 ? `deploy-blocked-${agent.id}` : undefined}
                  >
                    Deploy
                  </button>
                  <button
                    type="button"
                    className="btn danger"
                    disabled={decommission.isPending}
                    onClick={() => {
                      if (
                        confirm(`Decommission ${agent.hostName}? Its tokens are revoked and its deployments removed.`)
                      )
                        decommission.mutate({ agentId: agent.id });
                    }}
                  >
                    Decommission
                  </button>
                </div>
                {chosen.length === 0 && (
                  <span className="muted small" id={`deploy-blocked-${agent.id}`} data-testid="deploy-blocked">
                    {free.length === 0
                      ? "No CPU is free to deploy on."
                      : "Tick the CPUs of the deployment's core budget to deploy."}
                  </span>
                )}
              </form>
            )}
          </section>
        );
      })}
    </>
  );
}
