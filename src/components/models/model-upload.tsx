"use client";
import { useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRef, useState } from "react";
import { modelNameProblem, suggestModelName } from "@/lib/models/model-name";
import { useTRPC } from "@/trpc/react";
import { formatBytes, formatLimit } from "./format";
import { ModelImportUrl } from "./model-import-url";

const REJECTION_TITLES: Record<string, string> = {
  TRUNCATED: "The file is truncated",
  NOT_ONNX: "Not an ONNX model",
  EMPTY: "The file is empty",
  EXTERNAL_DATA: "The model's external data is missing or misplaced",
  BAD_ARCHIVE: "The archive cannot be used",
  UNSUPPORTED_OPERATOR: "Unsupported operator",
  ORT_REJECTED: "ONNX Runtime refused the model",
  TOO_LARGE: "The file is too large",
  TIMEOUT: "Validation took too long",
  MEMORY_LIMIT: "Validation needed too much memory",
  INVALID_INPUT: "Check the form",
};

type Phase =
  | { kind: "idle" }
  | { kind: "sending"; loaded: number; total: number }
  | { kind: "checking" }
  | { kind: "done"; modelId: string; name: string; version: number; deduplicated: boolean; dataFiles: number }
  | { kind: "failed"; code: string; message: string; field?: string };

interface UploadReply {
  model?: { id: string; name: string };
  version?: { number: number };
  deduplicated?: boolean;
  dataFiles?: string[];
  error?: { code: string; message: string; field?: string };
}

const isArchive = (fileName: string) => /\.(tar|zip)$/i.test(fileName);

/**
 * Upload form: the file goes to /api/models/upload as the raw body (streamed), with a progress bar from XHR. A .tar
 * or .zip carries a model whose weights live in external data files beside the .onnx (past protobuf's 2 GB).
 */
export function ModelUpload({ maxBytes, archiveMaxBytes }: { maxBytes: number; archiveMaxBytes: number }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState("");
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const xhrRef = useRef<XMLHttpRequest | null>(null);
  const busy = phase.kind === "sending" || phase.kind === "checking";
  const nameProblem = name ? modelNameProblem(name) : null;

  function pick(event: React.ChangeEvent<HTMLInputElement>) {
    const picked = event.target.files?.[0] ?? null;
    setFile(picked);
    setPhase({ kind: "idle" });
    // Each file suggests its own name; the user may change it before uploading.
    if (picked) setName(suggestModelName(picked.name));
  }

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!file) return;
    const limit = isArchive(file.name) ? archiveMaxBytes : maxBytes;
    if (file.size > limit) {
      setPhase({
        kind: "failed",
        code: "TOO_LARGE",
        message: `${file.name} is ${formatBytes(file.size)}; the limit is ${formatLimit(limit)}.`,
      });
      return;
    }
    const form = new FormData(event.currentTarget);
    const params = new URLSearchParams({ name, fileName: file.name });
    const description = String(form.get("description") ?? "").trim();
    const dims = String(form.get("dims") ?? "").trim();
    if (description) params.set("description", description);
    if (dims) params.set("dims", dims);
    const batchAxes = String(form.get("batchAxes") ?? "").trim();
    if (batchAxes) params.set("batchAxes", batchAxes);

    const xhr = new XMLHttpRequest();
    xhrRef.current = xhr;
    xhr.open("POST", `/api/models/upload?${params}`);
    xhr.setRequestHeader("content-type", "application/octet-stream");
    xhr.upload.onprogress = (e) =>
      setPhase({ kind: "sending", loaded: e.loaded, total: e.lengthComputable ? e.total : file.size });
    xhr.upload.onload = () => setPhase({ kind: "checking" });
    xhr.onload = () => {
      let reply: UploadReply = {};
      try {
        reply = JSON.parse(xhr.responseText) as UploadReply;
      } catch {
        /* not JSON: reported below */
      }
      if (xhr.status < 300 && reply.model && reply.version) {
        setPhase({
          kind: "done",
          modelId: reply.model.id,
          name: reply.model.name,
          version: reply.version.number,
          deduplicated: !!reply.deduplicated,
          dataFiles: reply.dataFiles?.length ?? 0,
        });
        void queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
      } else {
        setPhase({
          kind: "failed",
          code: reply.error?.code ?? `HTTP_${xhr.status}`,
          message: reply.error?.message ?? `the server answered ${xhr.status}`,
          field: reply.error?.field,
        });
      }
    };
    xhr.onerror = () =>
      setPhase({ kind: "failed", code: "NETWORK", message: "the connection failed before the server answered" });
    xhr.onabort = () => setPhase({ kind: "idle" });
    setPhase({ kind: "sending", loaded: 0, total: file.size });
    xhr.send(file);
  }

  // Why Upload is disabled, said beside it (nothing while an upload runs: the progress says that).
  const uploadBlocked = busy
    ? null
    : !file
      ? "Choose a model file first."
      : !name
        ? "Give the model a name."
        : nameProblem
          ? nameProblem
          : null;
  const percent = phase.kind === "sending" && phase.total > 0 ? Math.min(100, (phase.loaded / phase.total) * 100) : 0;
  return (
    <section className="section">
      <h2>Upload a model</h2>
      <div className="panel">
        <form className="models-upload" onSubmit={submit} data-testid="upload-form">
          <label className="form-field">
            <span>ONNX file (up to {formatLimit(maxBytes)}), or .tar / .zip with external data</span>
            <input
              type="file"
              name="file"
              accept=".onnx,.tar,.zip,application/octet-stream,application/x-tar,application/zip"
              onChange={pick}
              required
              disabled={busy}
              data-testid="upload-file"
            />
          </label>
          <label className="form-field">
            <span>Name {nameProblem && <em className="form-field-error">{nameProblem.split(" (")[0]}</em>}</span>
            <input
              name="name"
              value={name}
              onChange={(e) => setName(e.target.value)}
              required
              maxLength={64}
              placeholder="e.g. resnet50-int8"
              autoComplete="off"
              disabled={busy}
              data-testid="upload-name"
            />
          </label>
          <label className="form-field">
            <span>Description</span>
            <input name="description" maxLength={2000} placeholder="optional" autoComplete="off" disabled={busy} />
          </label>
          <label className="form-field">
            <span>Dynamic dims</span>
            <input
              name="dims"
              placeholder="e.g. sequence=128"
              autoComplete="off"
              disabled={busy}
              title="Values for dynamic dimensions other than the batch, e.g. sequence=128"
            />
          </label>
          <label className="form-field">
            <span>Batch axes</span>
            <input
              name="batchAxes"
              placeholder="inferred; e.g. h0=1, state=none"
              autoComplete="off"
              disabled={busy}
              title="Override a tensor's batch axis (h0=1), or say it has none (state=none: the model is then served without batching)"
            />
          </label>
          <button
            type="submit"
            className="btn primary"
            disabled={!file || busy || !!nameProblem || !name}
            data-testid="upload-submit"
            aria-describedby={uploadBlocked ? "upload-blocked" : undefined}
          >
            {busy ? "Uploading…" : "Upload"}
          </button>
          {uploadBlocked && (
            <span className="muted small" id="upload-blocked" data-testid="upload-blocked">
              {uploadBlocked}
            </span>
          )}
        </form>
        <p className="hint" style={{ marginTop: 8 }} data-testid="upload-archive-hint">
          <strong>.tar / .zip</strong> (up to {formatLimit(archiveMaxBytes)}): for a model whose weights live in
          external data files beside the .onnx, as exporters save models past protobuf&apos;s 2 GB limit. Put the one
          .onnx and its data files in the archive at the paths its tensors name, relative to the .onnx; it is checked
          (no absolute paths, no &ldquo;..&rdquo;, no links) and stored as one version, sent to agents whole.
        </p>
        {phase.kind === "sending" && (
          <div className="upload-status" data-testid="upload-progress">
            <div className="line">
              <span>Sending {file?.name}</span>
              <span>
                {formatBytes(phase.loaded)} of {formatBytes(phase.total)} ({percent.toFixed(0)}%)
              </span>
            </div>
            <div
              className="progress"
              role="progressbar"
              aria-valuemin={0}
              aria-valuemax={100}
              aria-valuenow={Math.round(percent)}
            >
              <div style={{ width: `${percent}%` }} />
            </div>
            <div>
              <button type="button" className="btn small" onClick={() => xhrRef.current?.abort()}>
                Cancel
              </button>
            </div>
          </div>
        )}
        {phase.kind === "checking" && (
          <div className="upload-status" data-testid="upload-checking">
            <div className="line">
              <span>Validating in a sandboxed process (ONNX, ONNX Runtime session), then analysing…</span>
            </div>
            <div className="progress indeterminate" role="progressbar" aria-label="validating">
              <div />
            </div>
          </div>
        )}
        {phase.kind === "done" && (
          <div className="notice" style={{ marginTop: 14, marginBottom: 0 }} data-testid="upload-done">
            {phase.deduplicated ? (
              <>
                This file is already version {phase.version} of <strong>{phase.name}</strong>; nothing new was
                stored.{" "}
              </>
            ) : (
              <>
                Uploaded <strong>{phase.name}</strong> as version {phase.version}
                {phase.dataFiles > 0
                  ? ` with ${phase.dataFiles} external data file${phase.dataFiles === 1 ? "" : "s"}`
                  : ""}
                .{" "}
              </>
            )}
            <Link href={`/models/${phase.modelId}`} data-testid="upload-open">
              Open its analysis →
            </Link>
          </div>
        )}
        {phase.kind === "failed" && (
          <div
            className="error-box"
            role="alert"
            style={{ marginTop: 14 }}
            data-testid="upload-error"
            data-code={phase.code}
          >
            <strong>{REJECTION_TITLES[phase.code] ?? "The upload failed"}.</strong> {phase.message}
            {phase.code !== "NETWORK" && (
              <div className="kv-inline" style={{ color: "inherit" }}>
                Nothing was stored.
              </div>
            )}
          </div>
        )}
        <ModelImportUrl />
      </div>
    </section>
  );
}
