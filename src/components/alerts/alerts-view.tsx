"use client";
// The Alerts page (issue #17): active alerts first (critical, then warning), resolved ones on request; SREs
// acknowledge and resolve, set the webhook and read its delivery log. Everyone else reads.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { useTRPC } from "@/trpc/react";
import { formatTime } from "../format-time";
import { heldFor, ruleLabel } from "./alert-labels";
import "./alerts.css";

type Filter = "active" | "resolved" | "all";

const attemptText = (a: { httpStatus?: number; error?: string; ms: number }) =>
  `${a.httpStatus ? `HTTP ${a.httpStatus}` : (a.error ?? "?")} (${a.ms} ms)`;

function WebhookSettings() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const hook = useQuery(trpc.alerts.webhook.queryOptions());
  const deliveries = useQuery(trpc.alerts.deliveries.queryOptions({ limit: 20 }, { refetchInterval: 5000 }));
  const save = useMutation(
    trpc.alerts.setWebhook.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.alerts.webhook.queryKey() }),
    }),
  );
  if (hook.isPending) return null;
  const h = hook.data;
  return (
    <section className="section alerts-webhook" data-testid="alert-webhook">
      <h2>Webhook</h2>
      <div className="panel">
        <p className="muted small" style={{ marginTop: 0 }}>
          Each alert that fires or resolves is POSTed as JSON to this URL, retried with doubling backoff until the
          receiver answers 2xx.
        </p>
        <form
          className="form inline webhook-form"
          key={h?.url ?? "none"}
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            const url = String(f.get("url") ?? "").trim();
            save.mutate({
              url: url || null,
              enabled: f.get("enabled") === "on",
              minSeverity: f.get("minSeverity") as "warning" | "critical",
            });
          }}
        >
          <label className="form-field webhook-url">
            <span>URL (empty: no webhook)</span>
            <input name="url" type="url" placeholder="https://hooks.example.com/packrat" defaultValue={h?.url ?? ""} />
          </label>
          <label className="form-field">
            <span>Send</span>
            <select name="minSeverity" defaultValue={h?.minSeverity ?? "warning"}>
              <option value="warning">warning and critical</option>
              <option value="critical">critical only</option>
            </select>
          </label>
          <label className="webhook-enabled">
            <input name="enabled" type="checkbox" defaultChecked={h?.enabled ?? true} /> enabled
          </label>
          <button className="btn primary" type="submit" disabled={save.isPending}>
            Save
          </button>
        </form>
        {save.error && (
          <div className="error-box" role="alert" style={{ marginTop: 10 }}>
            {save.error.message}
          </div>
        )}
      </div>
      <h3 className="alerts-subhead">Delivery log</h3>
      {(deliveries.data ?? []).length === 0 ? (
        <p className="muted">Nothing sent yet.</p>
      ) : (
        <div className="table-wrap">
          <table className="data" data-testid="alert-deliveries">
            <thead>
              <tr>
                <th>When</th>
                <th>Alert</th>
                <th>Event</th>
                <th>To</th>
                <th>Status</th>
                <th>Attempts</th>
              </tr>
            </thead>
            <tbody>
              {deliveries.data!.map((d) => (
                <tr key={d.id}>
                  <td className="small nowrap">{formatTime(d.createdAt)}</td>
                  <td className="small">
                    {d.alert ? `${ruleLabel(d.alert.rule)}: ${d.alert.objectLabel}` : d.alertId}
                  </td>
                  <td>{d.event}</td>
                  <td className="small mono">{d.origin}</td>
                  <td>
                    <span
                      className={`badge ${d.status === "delivered" ? "ok" : d.status === "failed" ? "bad" : "warn"}`}
                    >
                      {d.status}
                    </span>
                    {d.nextAttemptAt && <div className="muted small">next try {formatTime(d.nextAttemptAt)}</div>}
                  </td>
                  <td className="small">
                    {d.log.length === 0 ? (
                      <span className="muted">not tried yet</span>
                    ) : d.log.length === 1 ? (
                      attemptText(d.log[0]!)
                    ) : (
                      <details>
                        <summary>
                          {d.log.length} tries · last {attemptText(d.log[d.log.length - 1]!)}
                        </summary>
                        {d.log.map((a, i) => (
                          <div key={i}>
                            {i + 1}. {formatTime(a.at).slice(11)} · {attemptText(a)}
                          </div>
                        ))}
                      </details>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** canAct: SREs acknowledge and resolve. linkObjects: the viewer may open the Agents and deployment pages (operators). */
export function AlertsView({
  canAct,
  linkObjects,
  offlineAfterS,
}: {
  canAct: boolean;
  linkObjects: boolean;
  offlineAfterS: number;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [filter, setFilter] = useState<Filter>("active");
  const alerts = useQuery(trpc.alerts.list.queryOptions({ filter }, { refetchInterval: 5000 }));
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.alerts.list.queryKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.alerts.count.queryKey() });
  };
  const acknowledge = useMutation(trpc.alerts.acknowledge.mutationOptions({ onSuccess: refresh }));
  const resolve = useMutation(trpc.alerts.resolve.mutationOptions({ onSuccess: refresh }));
  return (
    <>
      <div className="alerts-filters" role="tablist" aria-label="Which alerts">
        {(["active", "resolved", "all"] as const).map((f) => (
          <button
            key={f}
            type="button"
            role="tab"
            aria-selected={filter === f}
            className={`btn small${filter === f ? " primary" : ""}`}
            onClick={() => setFilter(f)}
          >
            {f === "active" ? "Active" : f === "resolved" ? "Resolved" : "All"}
          </button>
        ))}
      </div>
      {[acknowledge.error, resolve.error].filter(Boolean).map((e, i) => (
        <div key={i} className="error-box" role="alert" style={{ marginBottom: 12 }}>
          {e!.message}
        </div>
      ))}
      {alerts.isPending ? (
        <p className="muted">Loading…</p>
      ) : alerts.error ? (
        <div className="error-box">{alerts.error.message}</div>
      ) : alerts.data.length === 0 ? (
        <p className="panel muted" data-testid="alerts-empty">
          {filter === "active"
            ? `No active alerts. Agents report every heartbeat; one silent for more than ${offlineAfterS} s raises "agent offline".`
            : "No alerts."}
        </p>
      ) : (
        <div className="table-wrap">
          <table className="data alerts-table" data-testid="alerts-table">
            <thead>
              <tr>
                <th>Severity</th>
                <th>Alert</th>
                <th>Concerns</th>
                <th>First / last seen</th>
                <th>State</th>
                {canAct && <th></th>}
              </tr>
            </thead>
            <tbody>
              {alerts.data.map((a) => (
                <tr
                  key={a.id}
                  data-rule={a.rule}
                  data-state={a.state}
                  className={a.state === "resolved" ? "inactive" : undefined}
                >
                  <td>
                    <span className={`badge ${a.severity === "critical" ? "bad" : "warn"}`}>{a.severity}</span>
                  </td>
                  <td className="alert-what">
                    <strong>{ruleLabel(a.rule)}</strong>
                    <div className="small">{a.message}</div>
                  </td>
                  <td className="small">
                    <div className="muted">{a.object.type}</div>
                    {a.object.href && (linkObjects || a.object.type === "proposal") ? (
                      <Link href={a.object.href}>{a.object.label}</Link>
                    ) : (
                      a.object.label
                    )}
                  </td>
                  <td className="small nowrap">
                    <div>{formatTime(a.firstSeenAt)}</div>
                    <div className="muted">
                      {formatTime(a.lastSeenAt)} · held {heldFor(a.firstSeenAt, a.resolvedAt ?? a.lastSeenAt)}
                    </div>
                  </td>
                  <td className="small">
                    <span
                      className={`badge ${a.state === "open" ? "bad" : a.state === "acknowledged" ? "warn" : "ok"}`}
                    >
                      {a.state}
                    </span>
                    {a.acknowledgedBy && <div className="muted">ack. by {a.acknowledgedBy}</div>}
                    {a.resolvedBy && (
                      <div className="muted">
                        resolved{" "}
                        {a.resolvedBy === "automatically (condition cleared)" ? a.resolvedBy : `by ${a.resolvedBy}`}
                      </div>
                    )}
                    {a.comment && <div className="muted">“{a.comment}”</div>}
                  </td>
                  {canAct && (
                    <td className="actions">
                      {a.state === "open" && (
                        <button
                          className="btn small"
                          type="button"
                          disabled={acknowledge.isPending}
                          onClick={() => acknowledge.mutate({ id: a.id })}
                        >
                          Acknowledge
                        </button>
                      )}
                      {a.state !== "resolved" && (
                        <button
                          className="btn small"
                          type="button"
                          disabled={resolve.isPending}
                          onClick={() => {
                            const comment = prompt("Resolve: what fixed it? (optional)");
                            if (comment !== null) resolve.mutate({ id: a.id, comment: comment || undefined });
                          }}
                        >
                          Resolve
                        </button>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {canAct && <WebhookSettings />}
    </>
  );
}
