"use client";
// "Profile this deployment": model version, the deployment's agent and core budget (T), input shape, grid
// (t ∈ chosen of 1..T, b ∈ powers of two up to a max), stopping-rule preset, and the estimated duration before it
// starts. On success the profile's page opens and shows the job live.
import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { DEFAULT_PROFILE_MAX_BATCH } from "@/core/profiling/profile-grid";
import { estimateGridDurationMs, ruleForPreset } from "@/core/profiling/stopping-rule";
import { useTRPC } from "@/trpc/react";
import { formatDuration } from "./profile-grid-data";
import {
  allThreads,
  batchesUpTo,
  chosenThreads,
  describeEstimate,
  describeGrid,
  MAX_BATCH_CHOICES,
  parseDimensions,
  ProfileFormError,
  RULE_PRESETS,
  type RulePreset,
} from "./profile-form-data";
import type { DeploymentProfilesData } from "./profile-types";

function attempt<T>(f: () => T): { ok: true; value: T } | { ok: false; message: string } {
  try {
    return { ok: true, value: f() };
  } catch (error) {
    if (error instanceof ProfileFormError) return { ok: false, message: error.message };
    throw error;
  }
}

export function ProfileCreateForm({ deploymentId, data }: { deploymentId: string; data: DeploymentProfilesData }) {
  const trpc = useTRPC();
  const router = useRouter();
  const T = data.cores;
  const [versionId, setVersionId] = useState(data.deployedVersionId);
  const [threads, setThreads] = useState<number[]>(() => allThreads(Math.max(1, T)));
  const [maxBatch, setMaxBatch] = useState(DEFAULT_PROFILE_MAX_BATCH);
  const [rule, setRule] = useState<RulePreset>("decision");
  const [placement, setPlacement] = useState<"free" | "serving">(data.placement.kind);
  const version = data.versions.find((v) => v.id === versionId) ?? data.versions[0];
  const [dims, setDims] = useState<Record<string, string>>({});
  const dimNames = Object.keys(version?.servingDims ?? {}).sort();
  const rawDims = Object.fromEntries(
    dimNames.map((n) => [n, dims[`${versionId}:${n}`] ?? String(version!.servingDims[n])]),
  );

  const grid = attempt(() => ({ threads: chosenThreads(threads, T), batches: batchesUpTo(maxBatch) }));
  const dimensions = attempt(() => parseDimensions(rawDims));
  const estimate = useQuery(
    trpc.profiles.estimate.queryOptions(
      {
        modelVersionId: versionId,
        threads: grid.ok ? grid.value.threads : [1],
        batches: grid.ok ? grid.value.batches : [1],
        rule,
      },
      { enabled: grid.ok },
    ),
  );
  // The probe: asked for when the form opens and whenever the version or the input shape changes; the server shares an
  // open or recent probe of the same version and shape, so re-asking is cheap.
  const probeKey = JSON.stringify({ versionId, dims: dimensions.ok ? dimensions.value : null });
  const probe = useMutation(trpc.profiles.probe.mutationOptions());
  const { mutate: askProbe } = probe;
  useEffect(() => {
    const { versionId: v, dims: d } = JSON.parse(probeKey) as {
      versionId: string;
      dims: Record<string, number> | null;
    };
    if (d) askProbe({ deploymentId, modelVersionId: v, dimensions: d });
  }, [askProbe, deploymentId, probeKey]);
  const probeId = probe.data?.probeId;
  const probeResult = useQuery(
    trpc.profiles.probeResult.queryOptions(
      { probeId: probeId ?? "" },
      {
        enabled: !!probeId,
        refetchInterval: (q) =>
          q.state.data && (q.state.data.state === "queued" || q.state.data.state === "running") ? 1000 : false,
      },
    ),
  );
  const probeView = probe.isPending ? undefined : (probeResult.data ?? probe.data);
  const probeMs = probeView?.state === "done" ? probeView.meanMs : null;
  const probeFailed =
    probe.error?.message ??
    (probeView && probeView.state !== "done" && probeView.state !== "queued" && probeView.state !== "running"
      ? (probeView.error ?? probeView.state)
      : null);
  const probeEstimate =
    probeMs !== null && grid.ok
      ? { probeMs, ...estimateGridDurationMs(probeMs, grid.value.threads, grid.value.batches, ruleForPreset(rule)) }
      : null;
  const create = useMutation(
    trpc.profiles.create.mutationOptions({ onSuccess: (r) => router.push(`/profiles/${r.profileId}`) }),
  );
  const problem = !grid.ok ? grid.message : !dimensions.ok ? dimensions.message : null;

  return (
    <form
      className="panel profile-form"
      data-testid="profile-create-form"
      aria-label="Profile this deployment"
      onSubmit={(e) => {
        e.preventDefault();
        if (!grid.ok || !dimensions.ok) return;
        create.mutate({
          deploymentId,
          modelVersionId: versionId,
          threads: grid.value.threads,
          batches: grid.value.batches,
          rule,
          dimensions: dimensions.value,
          cpus: placement,
        });
      }}
    >
      <h3 style={{ margin: 0, fontSize: 15 }}>Profile this deployment</h3>
      <div className="form-row">
        <label className="form-field">
          <span>Model version</span>
          <select value={versionId} onChange={(e) => setVersionId(e.target.value)} data-testid="field-version">
            {data.versions.map((v) => (
              <option key={v.id} value={v.id}>
                {data.modelName} v{v.number}
                {v.id === data.deployedVersionId ? " (deployed)" : ""}
              </option>
            ))}
          </select>
        </label>
        <div className="form-field">
          <span>Runs on</span>
          <div className="small" data-testid="profile-runs-on">
            {data.hostName}, in this deployment&apos;s core budget: CPUs {data.cpus.join(", ")} → T = {T} core
            {T === 1 ? "" : "s"}; one instance of t threads at a time, pinned inside it.
          </div>
        </div>
        <div className="form-field">
          <span>Input shape</span>
          {dimNames.length === 0 ? (
            <div className="small">The version&apos;s serving shape; batch is the only dynamic dimension.</div>
          ) : (
            dimNames.map((n) => (
              <label key={n} className="small" style={{ display: "flex", gap: 6, alignItems: "center" }}>
                {n} ={" "}
                <input
                  type="number"
                  min={1}
                  step={1}
                  value={rawDims[n]}
                  onChange={(e) => setDims({ ...dims, [`${versionId}:${n}`]: e.target.value })}
                  data-testid={`field-dim-${n}`}
                  style={{ width: 100 }}
                />
              </label>
            ))
          )}
        </div>
      </div>
      <div className="form-row">
        <fieldset>
          <legend>Threads t (1 … {T})</legend>
          <div className="checks" data-testid="field-threads">
            {allThreads(Math.max(1, T)).map((t) => (
              <label key={t}>
                <input
                  type="checkbox"
                  checked={threads.includes(t)}
                  onChange={(e) => setThreads(e.target.checked ? [...threads, t] : threads.filter((x) => x !== t))}
                />{" "}
                {t}
              </label>
            ))}
          </div>
        </fieldset>
        <label className="form-field">
          <span>Largest batch (b = 1, 2, 4, … up to it)</span>
          <select value={maxBatch} onChange={(e) => setMaxBatch(Number(e.target.value))} data-testid="field-max-batch">
            {MAX_BATCH_CHOICES.map((b) => (
              <option key={b} value={b}>
                {b}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Warm-up and stopping rule</legend>
          <div className="radios" data-testid="field-rule">
            {RULE_PRESETS.map((r) => (
              <label key={r.value}>
                <input
                  type="radio"
                  name="rule"
                  value={r.value}
                  checked={rule === r.value}
                  onChange={() => setRule(r.value)}
                />
                <span>
                  {r.label} <span className="muted">— {r.detail}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      </div>
      <div className="form-row">
        <fieldset data-testid="field-cpus">
          <legend>Where to measure</legend>
          {data.placement.kind === "free" ? (
            <div className="radios">
              <label>
                <input
                  type="radio"
                  name="cpus"
                  value="free"
                  checked={placement === "free"}
                  onChange={() => setPlacement("free")}
                />
                <span>
                  Free CPUs {data.placement.cpus.join(", ")} (default){" "}
                  <span className="muted">
                    — {data.placement.freeCores} physical cores outside every deployment&apos;s budget on socket{" "}
                    {data.placement.socket}: no serving traffic on them
                  </span>
                </span>
              </label>
              <label>
                <input
                  type="radio"
                  name="cpus"
                  value="serving"
                  checked={placement === "serving"}
                  onChange={() => setPlacement("serving")}
                />
                <span>
                  The serving cores {data.cpus.join(", ")}{" "}
                  <span className="muted">— measures alongside the deployment&apos;s own traffic</span>
                </span>
              </label>
            </div>
          ) : (
            <div className="small" data-testid="cpu-placement-note">
              Measures on the serving cores {data.cpus.join(", ")}: {data.placement.reason}. Traffic and other processes
              there are counted per cell.
            </div>
          )}
        </fieldset>
      </div>
      <div className="estimate" data-testid="profile-estimate" aria-live="polite">
        <strong data-testid="profile-grid-size">
          {grid.ok ? describeGrid(grid.value.threads, grid.value.batches) : "No grid"}
        </strong>
        {problem ? (
          <div>
            <span className="form-field-error" data-testid="profile-form-error">
              {problem}
            </span>
          </div>
        ) : (
          <>
            <div data-testid="probe-estimate">
              {probeEstimate
                ? describeEstimate(probeEstimate, formatDuration, "probe")
                : probeFailed
                  ? `No probe estimate: ${probeFailed}`
                  : `Estimating… a 3-iteration probe at t=1, b=1 on ${data.hostName}${probeView?.state === "queued" ? " (waiting for the agent)" : ""}.`}
            </div>
            {!probeEstimate && (
              <div className="muted small" data-testid="fallback-estimate">
                {estimate.isPending
                  ? "Looking for an earlier profile…"
                  : estimate.error
                    ? `No earlier-profile estimate: ${estimate.error.message}`
                    : describeEstimate(estimate.data, formatDuration, "earlier-profile")}
              </div>
            )}
          </>
        )}
      </div>
      {create.error && (
        <div className="error-box" role="alert">
          {create.error.message}
        </div>
      )}
      <div className="actions">
        <button className="btn primary" type="submit" disabled={!!problem || create.isPending || data.removed}>
          Start profiling
        </button>
        {data.removed && <span className="muted small">This deployment was removed; profile a live one.</span>}
      </div>
    </form>
  );
}
