"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatCount } from "./format";

const DEFAULT_SEED = 2311; // src/modelzoo/registry.ts: the seed every zoo build uses unless asked otherwise

/** The model zoo: register a benchmark architecture (synthetic seeded weights) in one click, built on the server. */
export function ZooCatalog({ canEdit }: { canEdit: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [seedText, setSeedText] = useState(String(DEFAULT_SEED));
  const seed = /^\d{1,10}$/.test(seedText) && Number(seedText) < 2 ** 32 ? Number(seedText) : null;
  const catalog = useQuery(
    trpc.models.zooCatalog.queryOptions(undefined, {
      // Poll while a registration is on its way.
      refetchInterval: (query) =>
        query.state.data?.some((e) => e.job && (e.job.state === "queued" || e.job.state === "running")) ? 1000 : false,
    }),
  );
  const register = useMutation(
    trpc.models.registerZoo.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.models.zooCatalog.queryKey() }),
    }),
  );
  // When a registration finishes, the registry table gains a row or a version.
  const registered = catalog.data?.reduce((n, e) => n + e.registered.length, 0) ?? 0;
  const seen = useRef(registered);
  useEffect(() => {
    if (registered !== seen.current) {
      seen.current = registered;
      void queryClient.invalidateQueries({ queryKey: trpc.models.list.queryKey() });
    }
  }, [registered, queryClient, trpc]);

  return (
    <section className="section">
      <h2>Model zoo</h2>
      <p className="muted" style={{ marginTop: 0, fontSize: 14 }}>
        The benchmark architectures, generated on the server as ONNX (opset 17) with seeded{" "}
        <strong>synthetic weights</strong>: their latency is the real architecture&apos;s, their outputs are
        meaningless. Registering is idempotent per builder version and seed.
      </p>
      {canEdit && (
        <div className="models-toolbar">
          <label className="form-field" style={{ width: 180 }}>
            <span>Weight seed {seed === null && <em className="form-field-error">0 … 4294967295</em>}</span>
            <input
              value={seedText}
              onChange={(e) => setSeedText(e.target.value.trim())}
              inputMode="numeric"
              data-testid="zoo-seed"
            />
          </label>
          <span className="muted" style={{ fontSize: 13, paddingBottom: 8 }}>
            Another seed builds the same architecture with other weights, as a new version.
          </span>
        </div>
      )}
      {register.error && (
        <div className="error-box" role="alert" style={{ marginBottom: 12 }}>
          {register.error.message}
        </div>
      )}
      {catalog.error && <div className="error-box">{catalog.error.message}</div>}
      {catalog.isPending ? (
        <p className="muted">Loading…</p>
      ) : (
        catalog.data && (
          <div className="table-wrap">
            <table className="data" data-testid="zoo-table">
              <thead>
                <tr>
                  <th>Architecture</th>
                  <th className="num">Parameters</th>
                  <th>Weights</th>
                  <th>Registered</th>
                  <th />
                </tr>
              </thead>
              <tbody>
                {catalog.data.map((e) => {
                  const job = e.job;
                  const active = job && (job.state === "queued" || job.state === "running");
                  const haveSeed = seed !== null && e.registered.some((r) => r.seed === seed);
                  return (
                    <tr key={e.name} data-zoo={e.name}>
                      <td>
                        <strong>{e.title}</strong> <span className="mono muted">{e.name}</span>
                        {e.heavy && (
                          <>
                            {" "}
                            <span
                              className="badge neutral"
                              title="Hundreds of MB: building, validating and analysing take a while"
                            >
                              large
                            </span>
                          </>
                        )}
                        <div className="models-desc">{e.description}</div>
                      </td>
                      <td className="num">{formatCount(e.parameters)}</td>
                      <td>
                        <span className="badge synthetic">{e.weights}</span>
                      </td>
                      <td data-testid="zoo-status">
                        {e.registered.map((r) => (
                          <div key={r.seed}>
                            <Link href={`/models/${r.modelId}`}>v{r.versionNumber}</Link>{" "}
                            <span className="muted">seed {r.seed}</span>
                          </div>
                        ))}
                        {active && job ? (
                          <div className="job-cell" data-testid="zoo-job">
                            <span>
                              seed {job.seed}: {job.state === "queued" ? "queued" : (job.progressMessage ?? "running")}
                            </span>
                            <div
                              className="progress"
                              role="progressbar"
                              aria-label={`registering ${e.name}`}
                              aria-valuemin={0}
                              aria-valuemax={100}
                              aria-valuenow={Math.round(job.progress * 100)}
                            >
                              <div style={{ width: `${Math.max(3, job.progress * 100)}%` }} />
                            </div>
                          </div>
                        ) : job?.state === "failed" ? (
                          <div className="form-field-error" title={job.error ?? undefined}>
                            seed {job.seed} failed: {job.error}
                          </div>
                        ) : (
                          e.registered.length === 0 && <span className="muted">not registered</span>
                        )}
                      </td>
                      <td className="actions">
                        {canEdit && !active && (
                          <button
                            type="button"
                            className="btn small"
                            disabled={register.isPending || seed === null || haveSeed}
                            title={haveSeed ? `seed ${seed} is registered already` : undefined}
                            onClick={() => seed !== null && register.mutate({ zooName: e.name, seed })}
                            data-testid="zoo-register"
                          >
                            {haveSeed ? "Registered" : "Register"}
                          </button>
                        )}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        )
      )}
    </section>
  );
}
