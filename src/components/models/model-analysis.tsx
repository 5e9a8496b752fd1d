"use client";
import { formatBytes, formatCount, formatFlops, formatMs, formatShape } from "./format";
import type { ModelVersionData } from "./model-types";

/** Where the weights live when not all in top-level initializers (rows stored before these counts read as 0). */
function storedWhere(p: { constantNodes?: number; inSubgraphs?: number }): string {
  const parts = [
    p.constantNodes ? `${p.constantNodes} in Constant nodes` : "",
    p.inSubgraphs ? `${p.inSubgraphs} in If/Loop/Scan bodies` : "",
  ].filter(Boolean);
  return parts.length ? ` (${parts.join(", ")})` : "";
}

/** "x axis 0, h0 axis 1": each tensor's batch axis, grouped when they all agree. */
function batchAxesText(axes: Record<string, number | null>): string {
  const entries = Object.entries(axes);
  if (entries.length > 0 && entries.every(([, a]) => a === 0)) return "axis 0 of every tensor";
  return entries.map(([name, a]) => `${name} axis ${a ?? "none"}`).join(", ");
}

/** What one version's file is and costs: interface, parameters, FLOPs per sample, operators, load time. */
export function ModelAnalysis({ version }: { version: ModelVersionData }) {
  const a = version.analysis;
  if (!a)
    return (
      <p className="empty">
        This version has no analysis this page can read (it was registered by an older or newer control plane).
      </p>
    );
  const s = a.summary;
  const flops = a.flops;
  const loadBytesPerS = a.validation.loadMs > 0 ? version.bytes / (a.validation.loadMs / 1000) : null;
  const dims = Object.entries(version.servingDims);
  return (
    <div className="analysis-grid" data-testid="analysis">
      <div className="table-wrap">
        <table className="data kv-table" data-testid="analysis-table">
          <tbody>
            <tr>
              <th>Parameters</th>
              <td data-testid="analysis-parameters">
                {s.parameters.parameters.toLocaleString("en-US")}
                {s.parameters.parameters >= 10_000 && (
                  <span className="muted"> ({formatCount(s.parameters.parameters)})</span>
                )}
              </td>
            </tr>
            <tr>
              <th>Weight bytes</th>
              <td>
                {formatBytes(s.parameters.weightBytes)}{" "}
                <span className="muted">
                  in {s.parameters.initializers} stored tensors{storedWhere(s.parameters)}
                </span>
              </td>
            </tr>
            <tr>
              <th>FLOPs per sample</th>
              <td data-testid="analysis-flops">
                {flops.status === "counted" ? (
                  <>
                    {formatFlops(flops.perSample.total)}{" "}
                    <span className="muted">({flops.perSample.total.toLocaleString("en-US")}, batch 1)</span>
                  </>
                ) : (
                  <span className="form-field-error" title={flops.message}>
                    not counted: {flops.message}
                  </span>
                )}
              </td>
            </tr>
            <tr>
              <th>File</th>
              <td>
                {formatBytes(version.bytes)}{" "}
                <span className="mono muted" title={version.sha256}>
                  sha256 {version.sha256.slice(0, 12)}…
                </span>
                {version.format === "onnx-bundle" && (
                  <div className="muted" data-testid="analysis-bundle">
                    model.onnx with {a.validation.dataFiles?.length ?? "its"} external data file
                    {a.validation.dataFiles?.length === 1 ? "" : "s"}
                    {a.validation.dataFiles?.length ? (
                      <>
                        {" "}
                        (
                        <span className="mono">
                          {a.validation.dataFiles.slice(0, 4).join(", ")}
                          {a.validation.dataFiles.length > 4 ? ", …" : ""}
                        </span>
                        )
                      </>
                    ) : null}
                    , stored and sent to agents as one bundle
                  </div>
                )}
              </td>
            </tr>
            <tr>
              <th>Weights</th>
              <td>
                {version.syntheticWeights ? (
                  <span className="badge synthetic">synthetic weights</span>
                ) : (
                  <span className="muted">as uploaded</span>
                )}
              </td>
            </tr>
            <tr>
              <th>ONNX</th>
              <td>
                IR {s.irVersion}, opset {s.defaultOpset ?? "—"}
                {s.opsets
                  .filter((o) => o.domain !== "")
                  .map((o) => `, ${o.domain} ${o.version}`)
                  .join("")}{" "}
                · {s.nodes} nodes
              </td>
            </tr>
            <tr>
              <th>Producer</th>
              <td>
                {s.producer.name || "—"}
                {s.producer.version ? ` ${s.producer.version}` : ""}
              </td>
            </tr>
            <tr>
              <th>Session load (ORT)</th>
              <td>
                {formatMs(a.validation.loadMs)}
                {loadBytesPerS !== null && <span className="muted"> · {formatBytes(Math.round(loadBytesPerS))}/s</span>}
              </td>
            </tr>
            <tr>
              <th>Peak RSS of one run</th>
              <td>
                {flops.status === "counted" && flops.peakRssBytes !== null ? formatBytes(flops.peakRssBytes) : "—"}
              </td>
            </tr>
            <tr>
              <th>Batching</th>
              <td data-testid="analysis-batching">
                {s.dynamicDims.batching === undefined ? (
                  <span className="muted">batch axis 0 (analysed before per-tensor axes)</span>
                ) : s.dynamicDims.batching.batchable ? (
                  <>dynamic, along {batchAxesText(s.dynamicDims.batchAxes ?? {})}</>
                ) : (
                  <>
                    <strong>none</strong>: served one request per instance at a time (b = 1);{" "}
                    {s.dynamicDims.batching.reason}
                  </>
                )}
              </td>
            </tr>
            <tr>
              <th>Serving dimensions</th>
              <td>
                {dims.length ? (
                  dims.map(([k, v]) => `${k} = ${v}`).join(", ")
                ) : (
                  <span className="muted">none to fix (only the batch is dynamic)</span>
                )}
              </td>
            </tr>
          </tbody>
        </table>
      </div>
      <div>
        <div className="table-wrap" style={{ marginBottom: 14 }}>
          <table className="data" data-testid="analysis-io">
            <thead>
              <tr>
                <th>Tensor</th>
                <th>Name</th>
                <th>Type</th>
                <th>Shape</th>
              </tr>
            </thead>
            <tbody>
              {s.inputs.map((t) => (
                <tr key={`in-${t.name}`}>
                  <td className="muted">input</td>
                  <td className="mono">{t.name}</td>
                  <td>{t.dataType}</td>
                  <td className="mono">{formatShape(t.shape)}</td>
                </tr>
              ))}
              {s.outputs.map((t) => (
                <tr key={`out-${t.name}`}>
                  <td className="muted">output</td>
                  <td className="mono">{t.name}</td>
                  <td>{t.dataType}</td>
                  <td className="mono">{formatShape(t.shape)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <div className="table-wrap">
          <table className="data" data-testid="analysis-operators">
            <thead>
              <tr>
                <th>Operator</th>
                <th className="num">Nodes</th>
                <th className="num">FLOPs / sample</th>
              </tr>
            </thead>
            <tbody>
              {s.operators.slice(0, 8).map((o) => {
                const counted =
                  flops.status === "counted"
                    ? flops.perSample.byOperator.find((b) => b.opType === o.opType)
                    : undefined;
                return (
                  <tr key={`${o.domain}:${o.opType}`}>
                    <td className="mono">
                      {o.domain ? `${o.domain}:` : ""}
                      {o.opType}
                    </td>
                    <td className="num">{o.nodes}</td>
                    <td className="num">{counted ? formatFlops(counted.flops) : <span className="muted">—</span>}</td>
                  </tr>
                );
              })}
              {s.operators.length > 8 && (
                <tr>
                  <td colSpan={3} className="muted">
                    and {s.operators.length - 8} more operator types
                  </td>
                </tr>
              )}
            </tbody>
          </table>
        </div>
      </div>
    </div>
  );
}
