"use client";
// The Optimizer page's export: the plan shown above as a Triton config.pbtxt, an OVMS config.json or a KServe
// InferenceService, each to copy or download, with what that format could not express said above the file.
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";

type Format = "triton" | "ovms" | "kserve";
const LABELS: Record<Format, string> = {
  triton: "Triton config.pbtxt",
  ovms: "OpenVINO Model Server config.json",
  kserve: "KServe InferenceService",
};

export function PlanExportPanel({
  deploymentId,
  profileId,
  batchSize,
  batchTimeoutMs,
}: {
  deploymentId: string;
  profileId: string;
  batchSize: number;
  batchTimeoutMs: number;
}) {
  const trpc = useTRPC();
  const [format, setFormat] = useState<Format>("triton");
  const [copied, setCopied] = useState<Format | null>(null);
  const exported = useQuery(
    trpc.proposals.exportPlan.queryOptions(
      { source: { kind: "optimizer", deploymentId, profileId, batchSize, batchTimeoutMs } },
      { retry: false },
    ),
  );
  const file = exported.data?.exports.find((e) => e.format === format);
  const download = () => {
    if (!file) return;
    const url = URL.createObjectURL(new Blob([file.content], { type: file.mediaType }));
    const a = document.createElement("a");
    a.href = url;
    a.download = file.fileName;
    a.click();
    URL.revokeObjectURL(url);
  };
  const copy = async () => {
    if (!file) return;
    await navigator.clipboard.writeText(file.content);
    setCopied(format);
  };
  return (
    <section className="card plan-export" data-testid="plan-export">
      <h2 className="optimizer-h2">Export to another serving system</h2>
      <p className="muted small">
        This plan as another server&apos;s configuration. They run identical instances with no per-instance CPU lists,
        so a plan they cannot say exactly is exported as the nearest one they can, and what was lost is listed. The CLI
        does the same: <code>packrat plans export</code>.
      </p>
      <div className="export-tabs" role="tablist">
        {(Object.keys(LABELS) as Format[]).map((f) => (
          <button
            key={f}
            type="button"
            role="tab"
            aria-selected={f === format}
            className={`btn${f === format ? " primary" : ""}`}
            data-testid={`export-tab-${f}`}
            onClick={() => setFormat(f)}
          >
            {LABELS[f]}
          </button>
        ))}
      </div>
      {exported.error && (
        <div className="error-box" role="alert">
          {exported.error.message}
        </div>
      )}
      {file && (
        <>
          {file.differences.length > 0 ? (
            <div className="warn-box" data-testid="export-differences">
              <strong>
                Exported as {file.exported.count} × ⟨t = {file.exported.threads}, b ≤ {file.exported.batch}⟩; not
                expressible here:
              </strong>
              <ul>
                {file.differences.map((d) => (
                  <li key={d.kind} data-kind={d.kind}>
                    {d.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : (
            <p className="small" data-testid="export-exact">
              Exact: {file.exported.count} × ⟨t = {file.exported.threads}, b = {file.exported.batch}⟩.
            </p>
          )}
          <pre className="export-file" data-testid="export-content">
            {file.content}
          </pre>
          <div className="propose-actions">
            <button type="button" className="btn" data-testid="export-download" onClick={download}>
              Download {file.fileName}
            </button>
            <button type="button" className="btn" data-testid="export-copy" onClick={() => void copy()}>
              Copy
            </button>
            {copied === format && (
              <span className="notice-inline" data-testid="export-copied">
                Copied.
              </span>
            )}
          </div>
        </>
      )}
    </section>
  );
}
