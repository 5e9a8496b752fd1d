"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { modelNameProblem, suggestModelName } from "@/lib/models/model-name";
import { useTRPC } from "@/trpc/react";

/** "sequence=128, width=64" → {sequence: 128, width: 64}; anything else is left for the server to name. */
function parseDims(text: string): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^:=\s]+)\s*[:=]\s*(\d+)$/.exec(part);
    if (m) out[m[1]!] = Number(m[2]);
  }
  return Object.keys(out).length ? out : undefined;
}

/** The last path segment of a URL as a model name ("…/resnet50.onnx?x" → "resnet50"), or "" while it is no URL. */
function nameFromUrl(text: string): string {
  try {
    return suggestModelName(decodeURIComponent(new URL(text).pathname.split("/").pop() ?? ""));
  } catch {
    return "";
  }
}

/**
 * Import by URL: the server downloads the file (through its outbound guard) and registers it as an upload would;
 * the browser sends only the URL, so the wait is the server's download, validation and analysis.
 */
export function ModelImportUrl() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [url, setUrl] = useState("");
  const [name, setName] = useState("");
  const [dims, setDims] = useState("");
  const nameProblem = name ? modelNameProblem(name) : null;
  const importUrl = useMutation(
    trpc.models.importUrl.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() }),
    }),
  );

  function changeUrl(text: string) {
    // The name follows the URL until the user types one of their own.
    if (!name || name === nameFromUrl(url)) setName(nameFromUrl(text));
    setUrl(text);
    importUrl.reset();
  }

  function submit(event: React.FormEvent<HTMLFormElement>) {
    event.preventDefault();
    importUrl.mutate({ url: url.trim(), name, dims: parseDims(dims) });
  }

  const result = importUrl.data;
  // Why Import is disabled, said beside it.
  const importBlocked = importUrl.isPending
    ? null
    : !url
      ? "Paste the model's https:// URL first."
      : !name
        ? "Give the model a name."
        : (nameProblem ?? null);
  return (
    <>
      <form className="models-upload" onSubmit={submit} data-testid="import-form" style={{ marginTop: 14 }}>
        <label className="form-field">
          <span>Import from URL</span>
          <input
            name="url"
            type="url"
            value={url}
            onChange={(e) => changeUrl(e.target.value)}
            required
            maxLength={2000}
            placeholder="https://…/model.onnx"
            autoComplete="off"
            disabled={importUrl.isPending}
            data-testid="import-url"
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
            disabled={importUrl.isPending}
            data-testid="import-name"
          />
        </label>
        <label className="form-field">
          <span>Dynamic dims</span>
          <input
            name="dims"
            value={dims}
            onChange={(e) => setDims(e.target.value)}
            placeholder="e.g. sequence=128"
            autoComplete="off"
            disabled={importUrl.isPending}
          />
        </label>
        <button
          type="submit"
          className="btn"
          disabled={!url || !name || !!nameProblem || importUrl.isPending}
          data-testid="import-submit"
          aria-describedby={importBlocked ? "import-blocked" : undefined}
        >
          {importUrl.isPending ? "Downloading and validating…" : "Import"}
        </button>
        {importBlocked && (
          <span className="muted small" id="import-blocked" data-testid="import-blocked">
            {importBlocked}
          </span>
        )}
      </form>
      {result && (
        <div className="notice" style={{ marginTop: 14, marginBottom: 0 }} data-testid="import-done">
          {result.deduplicated ? (
            <>
              This file is already version {result.version.number} of <strong>{result.model.name}</strong>; nothing new
              was stored.{" "}
            </>
          ) : (
            <>
              Imported <strong>{result.model.name}</strong> as version {result.version.number} from {result.source}
              .{" "}
            </>
          )}
          <Link href={`/models/${result.model.id}`}>Open its analysis →</Link>
        </div>
      )}
      {importUrl.error && (
        <div className="error-box" role="alert" style={{ marginTop: 14 }} data-testid="import-error">
          <strong>The import was refused.</strong> {importUrl.error.message}
          <div className="kv-inline" style={{ color: "inherit" }}>
            Nothing was stored.
          </div>
        </div>
      )}
    </>
  );
}
