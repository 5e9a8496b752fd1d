"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useDeferredValue, useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";
import { formatBytes, formatCount, formatSlo } from "./format";

/** The registry: every model with its latest version, source, size, parameters and SLO; searchable. */
export function ModelsTable() {
  const trpc = useTRPC();
  const [search, setSearch] = useState("");
  const deferred = useDeferredValue(search.trim());
  const models = useQuery(
    trpc.models.list.queryOptions(deferred ? { search: deferred } : undefined, {
      placeholderData: (previous) => previous,
    }),
  );

  return (
    <section className="section" data-testid="models-section">
      <h2>Registered models</h2>
      <div className="models-toolbar">
        <label className="form-field">
          <span>Search</span>
          <input
            type="search"
            value={search}
            onChange={(e) => setSearch(e.target.value)}
            placeholder="name or description"
            data-testid="models-search"
            aria-label="Search models"
          />
        </label>
      </div>
      {models.error && <div className="error-box">{models.error.message}</div>}
      {models.isPending ? (
        <p className="muted">Loading…</p>
      ) : (
        models.data &&
        (models.data.length === 0 ? (
          <p className="empty" data-testid="models-empty">
            {deferred ? (
              <>No model matches “{deferred}”.</>
            ) : (
              <>No models yet. Upload an ONNX file or register one from the model zoo below.</>
            )}
          </p>
        ) : (
          <div className="table-wrap">
            <table className="data" data-testid="models-table">
              <thead>
                <tr>
                  <th>Model</th>
                  <th className="num">Versions</th>
                  <th>Latest version</th>
                  <th className="num">Parameters</th>
                  <th>SLO</th>
                  <th>Latest added</th>
                </tr>
              </thead>
              <tbody>
                {models.data.map((m) => (
                  <tr key={m.id} data-model={m.name}>
                    <td>
                      <Link href={`/models/${m.id}`} className="mono">
                        {m.name}
                      </Link>
                      {m.syntheticWeights && (
                        <>
                          {" "}
                          <span
                            className="badge synthetic"
                            title="Random seeded weights: the latency is the real architecture's; the outputs are meaningless"
                          >
                            synthetic weights
                          </span>
                        </>
                      )}
                      {m.description && <div className="models-desc">{m.description}</div>}
                    </td>
                    <td className="num">{m.versionCount}</td>
                    <td className="nowrap">
                      {m.latest ? (
                        <>
                          v{m.latest.number} <span className="badge source">{m.latest.source}</span>{" "}
                          <span className="muted">{formatBytes(m.latest.bytes)}</span>
                        </>
                      ) : (
                        "—"
                      )}
                    </td>
                    <td className="num">
                      {m.latest?.parameters !== null && m.latest?.parameters !== undefined
                        ? formatCount(m.latest.parameters)
                        : "—"}
                    </td>
                    <td className="nowrap" data-testid="model-slo">
                      {m.slo ? formatSlo(m.slo) : <span className="muted">not set</span>}
                    </td>
                    <td className="nowrap muted">{formatTime(m.latest?.createdAt ?? m.updatedAt)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))
      )}
    </section>
  );
}
