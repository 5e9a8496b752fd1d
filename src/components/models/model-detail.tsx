"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";
import { formatBytes, formatCount, formatFlops, formatMs } from "./format";
import { ModelAnalysis } from "./model-analysis";
import { OipExampleBox } from "./oip-example-box";
import { SloEditor } from "./slo-editor";

/** One model: its versions and their analysis, SLO, where it runs, its profiles, and how to call it. */
export function ModelDetail({ id, canEdit }: { id: string; canEdit: boolean }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const model = useQuery(trpc.models.get.queryOptions({ id }));
  const deployments = useQuery(trpc.models.deployments.queryOptions({ modelId: id }));
  const profiles = useQuery(trpc.models.profiles.queryOptions({ modelId: id }));
  const [selected, setSelected] = useState<number | null>(null);
  const [confirming, setConfirming] = useState(false);
  const remove = useMutation(
    trpc.models.delete.mutationOptions({
      onSuccess: async () => {
        await queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
        router.push("/models");
      },
    }),
  );

  if (model.error) return <div className="error-box">{model.error.message}</div>;
  if (!model.data) return <p className="muted">Loading…</p>;
  const m = model.data;
  const version = m.versions.find((v) => v.number === selected) ?? m.versions[0];
  const synthetic = m.versions.some((v) => v.syntheticWeights);
  const inUse = m.versions.filter((v) => v.inUse).map((v) => v.number);

  return (
    <>
      <p className="muted" style={{ margin: "0 0 6px", fontSize: 13 }}>
        <Link href="/models">Models</Link> / {m.name}
      </p>
      <div className="model-head">
        <h1 className="model-title" data-testid="model-name">
          {m.name}
        </h1>
        {synthetic && (
          <span
            className="badge synthetic"
            title="Random seeded weights: the latency is the real architecture's; the outputs are meaningless"
          >
            synthetic weights
          </span>
        )}
      </div>
      <div className="model-meta">
        {m.description && <span>{m.description}</span>}
        <span>
          {m.versions.length} version{m.versions.length === 1 ? "" : "s"}
        </span>
        <span>created {formatTime(m.createdAt)}</span>
      </div>

      <div className="model-grid">
        <SloEditor model={m} canEdit={canEdit} />
        <section className="section panel" data-testid="deployed-section">
          <h2 style={{ fontSize: 16, margin: "0 0 8px" }}>Where it is deployed</h2>
          {deployments.error && <div className="error-box">{deployments.error.message}</div>}
          {deployments.data &&
            (deployments.data.length === 0 ? (
              <p className="muted" style={{ margin: 0, fontSize: 14 }} data-testid="deployed-empty">
                Not deployed on any agent. SREs deploy a version to an agent&apos;s cores on the Agents page.
              </p>
            ) : (
              <table className="data" data-testid="deployed-table">
                <thead>
                  <tr>
                    <th>Agent</th>
                    <th>Version</th>
                    <th className="num">Generation</th>
                    <th>State</th>
                  </tr>
                </thead>
                <tbody>
                  {deployments.data.map((d) => (
                    <tr key={d.deploymentId}>
                      <td>
                        <Link href={`/deployments/${d.deploymentId}`}>{d.hostName}</Link>
                      </td>
                      <td>v{d.versionNumber}</td>
                      <td className="num">
                        {d.observedGeneration}/{d.generation}
                      </td>
                      <td>
                        <span
                          className={`badge ${d.state === "serving" ? "ok" : d.state === "failed" ? "bad" : "warn"}`}
                        >
                          {d.state}
                        </span>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ))}
        </section>
      </div>

      <section className="section">
        <h2>Versions</h2>
        <div className="table-wrap">
          <table className="data" data-testid="versions-table">
            <thead>
              <tr>
                <th>Version</th>
                <th>Source</th>
                <th className="num">Size</th>
                <th className="num">Parameters</th>
                <th className="num nowrap">FLOPs / sample</th>
                <th className="num">Load</th>
                <th>Added</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {m.versions.map((v) => (
                <tr
                  key={v.id}
                  className={`clickable${v.id === version?.id ? " selected" : ""}`}
                  onClick={() => setSelected(v.number)}
                  data-version={v.number}
                >
                  <td className="nowrap">
                    <strong>v{v.number}</strong>
                    {v.inUse && (
                      <>
                        {" "}
                        <span className="badge ok">deployed</span>
                      </>
                    )}
                  </td>
                  <td>
                    <span className="badge source">{v.source}</span>{" "}
                    {v.zoo ? (
                      <span className="mono muted">
                        {v.zoo.name}@{v.zoo.builderVersion} seed {v.zoo.seed}
                      </span>
                    ) : (
                      <span className="mono muted" title={v.sha256}>
                        {v.sha256.slice(0, 12)}…
                      </span>
                    )}
                    {v.syntheticWeights && (
                      <>
                        {" "}
                        <span className="badge synthetic">synthetic weights</span>
                      </>
                    )}
                  </td>
                  <td className="num nowrap">{formatBytes(v.bytes)}</td>
                  <td className="num">{v.analysis ? formatCount(v.analysis.summary.parameters.parameters) : "—"}</td>
                  <td className="num nowrap">
                    {v.analysis?.flops.status === "counted" ? formatFlops(v.analysis.flops.perSample.total) : "—"}
                  </td>
                  <td className="num nowrap">{v.analysis ? formatMs(v.analysis.validation.loadMs) : "—"}</td>
                  <td>
                    <div className="nowrap">{formatTime(v.createdAt)}</div>
                    <div className="muted">{v.createdBy ?? "the control plane"}</div>
                  </td>
                  <td className="actions">
                    <button
                      type="button"
                      className="btn small"
                      onClick={() => setSelected(v.number)}
                      aria-pressed={v.id === version?.id}
                    >
                      Analysis
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>

      {version && (
        <section className="section" data-testid="analysis-section">
          <h2>Analysis of v{version.number}</h2>
          <ModelAnalysis version={version} />
        </section>
      )}

      <section className="section" data-testid="profiles-section">
        <h2>Profiles</h2>
        {profiles.error && <div className="error-box">{profiles.error.message}</div>}
        {profiles.data &&
          (profiles.data.length === 0 ? (
            <p className="empty" data-testid="profiles-empty">
              No profiles yet. A profiling job measures this model&apos;s latency over threads × batch size on an
              agent&apos;s cores; the optimizer plans from it.
            </p>
          ) : (
            <div className="table-wrap">
              <table className="data" data-testid="profiles-table">
                <thead>
                  <tr>
                    <th>Version</th>
                    <th>Hardware class</th>
                    <th className="num">Cores</th>
                    <th>Grid</th>
                    <th className="num">Cells</th>
                    <th>Status</th>
                    <th>Started</th>
                  </tr>
                </thead>
                <tbody>
                  {profiles.data.map((p) => (
                    <tr key={p.id}>
                      <td>v{p.versionNumber}</td>
                      <td>{p.hardwareClass}</td>
                      <td className="num">{p.cores}</td>
                      <td className="mono">
                        t ∈ {`{${p.threads.join(",")}}`} × b ∈ {`{${p.batches.join(",")}}`}
                      </td>
                      <td className="num">
                        {p.cells}/{p.threads.length * p.batches.length}
                      </td>
                      <td>
                        <span
                          className={`badge ${p.status === "complete" ? "ok" : p.status === "failed" ? "bad" : "warn"}`}
                        >
                          {p.status}
                        </span>
                      </td>
                      <td className="nowrap">{formatTime(p.createdAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ))}
      </section>

      <section className="section">
        <h2>Call it (Open Inference Protocol)</h2>
        <OipExampleBox name={m.name} version={version} deployments={deployments.data ?? []} />
      </section>

      {canEdit && (
        <section className="section">
          <h2>Delete</h2>
          <div className="danger-zone">
            {!confirming ? (
              <button
                type="button"
                className="btn danger"
                onClick={() => setConfirming(true)}
                disabled={inUse.length > 0}
                data-testid="model-delete"
              >
                Delete {m.name}
              </button>
            ) : (
              <>
                <span>
                  Delete <strong>{m.name}</strong> and its {m.versions.length} version
                  {m.versions.length === 1 ? "" : "s"}? Files no other model uses are removed by the next clean-up.
                </span>
                <button
                  type="button"
                  className="btn danger"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate({ id: m.id })}
                  data-testid="model-delete-confirm"
                >
                  Delete
                </button>
                <button type="button" className="btn" onClick={() => setConfirming(false)}>
                  Cancel
                </button>
              </>
            )}
            {inUse.length > 0 && (
              <span className="muted">
                Version{inUse.length > 1 ? "s" : ""} {inUse.join(", ")} {inUse.length > 1 ? "are" : "is"} deployed:
                remove the deployments first.
              </span>
            )}
          </div>
          {remove.error && (
            <div className="error-box" role="alert" style={{ marginTop: 10 }}>
              {remove.error.message}
            </div>
          )}
        </section>
      )}
    </>
  );
}
