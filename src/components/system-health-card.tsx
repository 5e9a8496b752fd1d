"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";

export function SystemHealthCard() {
  const trpc = useTRPC();
  const { data, error, isPending } = useQuery(trpc.system.health.queryOptions(undefined, { refetchInterval: 10_000 }));
  if (isPending)
    return (
      <div className="card">
        <h2>Control plane</h2>Checking…
      </div>
    );
  if (error)
    return (
      <div className="card">
        <h2>Control plane</h2>
        <div className="error-box">{error.message}</div>
      </div>
    );
  // Only a signed-in caller gets the details; the badge alone otherwise.
  const full = "version" in data ? data : null;
  const db = full?.checks.database;
  const migrations = full?.checks.migrations;
  return (
    <div className="card" data-testid="system-health">
      <h2>Control plane</h2>
      <p>
        <span className={`badge ${data.status === "ok" ? "ok" : "bad"}`} data-testid="health-status">
          {data.status === "ok" ? "healthy" : "degraded"}
        </span>
      </p>
      {full && db && migrations && (
        <dl className="kv">
          <dt>Version</dt>
          <dd>{full.version}</dd>
          <dt>Database</dt>
          <dd>{db.ok ? `reachable (${db.latencyMs} ms)` : `unreachable: ${db.error}`}</dd>
          <dt>Migrations</dt>
          <dd>
            {migrations.ok
              ? `current (${migrations.applied} applied)`
              : (migrations.error ?? `pending: ${migrations.pending?.join(", ")}`)}
          </dd>
        </dl>
      )}
    </div>
  );
}
