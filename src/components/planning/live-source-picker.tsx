"use client";
// Picks the deployment whose heartbeats feed a planning page, and the window of rollup minutes to read. Only
// operators read deployments' live numbers (the server checks it too); other roles see why the page is planner-only.
import { useQuery } from "@tanstack/react-query";
import { formatTime } from "@/components/format-time";
import { LIVE_WINDOW_MINUTES, type LiveSource } from "@/contracts/live-source";
import { useTRPC } from "@/trpc/react";

/** Heartbeats arrive every few seconds; a live view re-reads the rollups this often. */
export const LIVE_REFETCH_MS = 5000;

export interface LiveWindowInfo {
  minutes: number;
  from: Date | null;
  to: Date | null;
  requests: number;
}

export function describeWindow(w: LiveWindowInfo): string {
  if (!w.from || !w.to) return `no heartbeat data in the last ${w.minutes} min`;
  return `${formatTime(w.from)} – ${formatTime(w.to).replace(/^\S+ /, "")} (last ${w.minutes} min, ${w.requests.toLocaleString("en-US")} requests)`;
}

export function LiveSourcePicker({
  canReadLive,
  value,
  onChange,
  label,
  noun,
}: {
  canReadLive: boolean;
  value: LiveSource;
  onChange: (next: LiveSource) => void;
  label: string;
  /** What the deployment supplies, for the notes ("measured stages", "a live operating point"). */
  noun: string;
}) {
  const trpc = useTRPC();
  const list = useQuery(trpc.planning.liveDeployments.queryOptions(undefined, { enabled: canReadLive }));
  if (!canReadLive) {
    return (
      <p className="muted small" data-testid="live-source-note">
        Planner mode: {noun} come from a deployment&apos;s heartbeats, which ML engineers and SREs can read.
      </p>
    );
  }
  if (list.error)
    return (
      <p className="field-error" role="alert">
        {list.error.message}
      </p>
    );
  const deployments = list.data ?? [];
  if (list.isSuccess && deployments.length === 0) {
    return (
      <p className="muted small" data-testid="live-source-note">
        Planner mode: no deployments yet; {noun} appear here once one serves.
      </p>
    );
  }
  return (
    <>
      <div className="field">
        <label htmlFor="f-live-deployment">{label}</label>
        <select
          id="f-live-deployment"
          data-testid="live-deployment"
          value={value.deploymentId}
          onChange={(e) => onChange({ ...value, deploymentId: e.target.value })}
          disabled={list.isPending}
        >
          <option value="">none: planner mode</option>
          {deployments.map((d) => (
            <option key={d.id} value={d.id}>
              {d.label}
              {d.state === "serving" ? "" : ` (${d.state})`}
            </option>
          ))}
        </select>
      </div>
      {value.deploymentId && (
        <div className="field">
          <label htmlFor="f-live-window">Heartbeat window</label>
          <select
            id="f-live-window"
            data-testid="live-window"
            value={String(value.windowMinutes)}
            onChange={(e) => onChange({ ...value, windowMinutes: Number(e.target.value) })}
          >
            {LIVE_WINDOW_MINUTES.map((m) => (
              <option key={m} value={m}>
                last {m < 60 ? `${m} min` : `${m / 60} h`}
              </option>
            ))}
          </select>
        </div>
      )}
    </>
  );
}
