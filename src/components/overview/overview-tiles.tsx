"use client";
// The Overview: the fleet at a glance, each tile linking to its page. The server leaves out the tiles the
// caller's role may not read (overview-service.ts); this renders what came. Refreshed every 10 s.
import Link from "next/link";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import type { LoopStepKey } from "@/core/overview/serving-loop";

const LOOP_TEXT: Record<LoopStepKey, { label: string; hint: string; href: string }> = {
  profile: {
    label: "Profile",
    hint: "measure the model's latency over threads × batch on its agent (a deployment's page, Profiles)",
    href: "/agents",
  },
  optimize: {
    label: "Optimize",
    hint: "let the Optimizer pick instances, threads and batch from the profile",
    href: "/optimizer",
  },
  propose: {
    label: "Propose",
    hint: "send that configuration for approval, with a reason (Optimizer, Propose)",
    href: "/optimizer",
  },
  approve: {
    label: "Approve",
    hint: "an SRE approves it; the agent applies it as the next generation",
    href: "/approvals",
  },
};

const rate = (perS: number) => `${perS < 10 ? perS.toFixed(2) : perS.toFixed(1)} /s`;
const ms = (value: number) => `${value < 10 ? value.toFixed(2) : value.toFixed(1)} ms`;
const usd = (value: number) => `$${value < 1 ? value.toFixed(4) : value.toFixed(2)}`;

function Tile({
  title,
  href,
  testId,
  children,
}: {
  title: string;
  href: string;
  testId: string;
  children: React.ReactNode;
}) {
  return (
    <Link href={href} className="card overview-tile" data-testid={testId}>
      <h2>{title}</h2>
      {children}
    </Link>
  );
}

export function OverviewTiles() {
  const trpc = useTRPC();
  const { data, error, isPending } = useQuery(trpc.overview.get.queryOptions(undefined, { refetchInterval: 10_000 }));
  if (isPending) return <p className="muted">Loading the overview…</p>;
  if (error)
    return (
      <div className="error-box" role="alert">
        {error.message}
      </div>
    );
  const serving = data.deployments?.filter((d) => d.state === "serving").length ?? 0;
  return (
    <>
      {data.loop && data.loop.next && (
        <section className="card overview-loop" data-testid="overview-loop">
          <h2>Get a model served the Packrat way</h2>
          {data.loop.needsDeployment && (
            <p className="muted small" data-testid="overview-needs-deployment">
              First deploy a model to an agent (<Link href="/models">Models</Link> to register one,{" "}
              <Link href="/agents">Agents</Link> to deploy it): profiling runs on a deployment.
            </p>
          )}
          <ol className="loop-steps">
            {data.loop.steps.map((step) => {
              const text = LOOP_TEXT[step.key];
              const next = step.key === data.loop!.next;
              return (
                <li
                  key={step.key}
                  className={`loop-step${step.done ? " done" : ""}${next ? " next" : ""}`}
                  data-testid={`loop-${step.key}`}
                  data-state={step.done ? "done" : next ? "next" : "todo"}
                  aria-current={next ? "step" : undefined}
                >
                  <span className="loop-mark" aria-hidden>
                    {step.done ? "✓" : next ? "→" : "○"}
                  </span>
                  <span>
                    <Link href={text.href}>
                      <strong>{text.label}</strong>
                    </Link>
                    : {text.hint}
                    {step.done ? " (done)" : next ? " (next)" : ""}
                  </span>
                </li>
              );
            })}
          </ol>
        </section>
      )}
      <div className="cards overview-cards">
        {data.agents && (
          <Tile title="Agents" href="/agents" testId="overview-agents">
            <p className="overview-figure">
              {data.agents.online} <span className="muted">online</span>
            </p>
            <p className={data.agents.offline ? "overview-bad" : "muted"}>{data.agents.offline} offline</p>
          </Tile>
        )}
        {data.liveRatePerS !== undefined && (
          <Tile title="Live rate (last 5 min)" href="/agents" testId="overview-rate">
            <p className="overview-figure">{rate(data.liveRatePerS)}</p>
            <p className="muted">
              requests over {serving} serving deployment{serving === 1 ? "" : "s"}
            </p>
          </Tile>
        )}
        {data.approvals && (
          <Tile title="Pending approvals" href="/approvals" testId="overview-approvals">
            <p className="overview-figure">{data.approvals.pending}</p>
            <p className="muted">{data.approvals.pending ? "waiting for an SRE" : "nothing waiting"}</p>
          </Tile>
        )}
        {data.alerts && (
          <Tile title="Open alerts" href="/alerts" testId="overview-alerts">
            <p className={`overview-figure${data.alerts.openCritical ? " overview-bad" : ""}`}>{data.alerts.open}</p>
            <p className="muted">
              {data.alerts.openCritical} critical · {data.alerts.unresolved - data.alerts.open} acknowledged
            </p>
          </Tile>
        )}
        {data.jobs && (
          <Tile title="Running jobs" href={data.jobs[0]?.href ?? "/models"} testId="overview-jobs">
            <p className="overview-figure">{data.jobs.length}</p>
            <p className="muted">
              {data.jobs.length
                ? data.jobs
                    .slice(0, 3)
                    .map((j) => `${j.kind.replace("_", " ")} ${Math.round(j.progress * 100)} %`)
                    .join(" · ")
                : "none queued or running"}
            </p>
          </Tile>
        )}
        {data.cost && (
          <Tile title="Cost this month" href="/cost" testId="overview-cost">
            <p className="overview-figure">{usd(data.cost.costUsd)}</p>
            <p className="muted">
              since {data.cost.since.toISOString().slice(0, 10)} (UTC)
              {data.cost.unpriced ? `, ${data.cost.unpriced} deployment(s) unpriced` : ""}
            </p>
          </Tile>
        )}
      </div>
      {data.deployments && (
        <section className="overview-deployments">
          <h2 className="overview-h2">Deployments</h2>
          {data.deployments.length === 0 ? (
            <p className="muted" data-testid="overview-no-deployments">
              No model is deployed yet: deploy one from <Link href="/agents">Agents</Link>.
            </p>
          ) : (
            <div className="table-wrap">
              <table className="data" data-testid="overview-deployments">
                <thead>
                  <tr>
                    <th>Deployment</th>
                    <th>Agent</th>
                    <th>State</th>
                    <th className="num">Rate (5 min)</th>
                    <th className="num">p99</th>
                    <th>SLO</th>
                  </tr>
                </thead>
                <tbody>
                  {data.deployments.map((d) => (
                    <tr key={d.id} data-model={d.modelName}>
                      <td>
                        <Link href={`/deployments/${d.id}`}>
                          {d.modelName} v{d.version}
                        </Link>
                      </td>
                      <td>{d.hostName}</td>
                      <td>
                        <span
                          className={`badge ${d.state === "serving" ? "ok" : d.state === "failed" ? "bad" : "warn"}`}
                          data-testid="overview-state"
                        >
                          {d.state}
                        </span>
                        {d.observedGeneration < d.generation ? (
                          <span className="muted small"> (applying generation {d.generation})</span>
                        ) : null}
                      </td>
                      <td className="num">{rate(d.ratePerS)}</td>
                      <td className="num">{d.p99Ms === null ? "—" : ms(d.p99Ms)}</td>
                      <td data-testid="overview-slo">
                        {!d.slo ? (
                          <span className="muted">no SLO set</span>
                        ) : d.meetsSlo === null ? (
                          <span className="muted">
                            p{Math.round(d.slo.quantile * 1000) / 10} ≤ {ms(d.slo.deadlineMs)}, no traffic
                          </span>
                        ) : (
                          <span className={d.meetsSlo ? "overview-ok" : "overview-bad"}>
                            {d.meetsSlo ? "met" : "missed"}: {(d.withinSloShare! * 100).toFixed(2)} % ≤{" "}
                            {ms(d.slo.deadlineMs)} (target {Math.round(d.slo.quantile * 1000) / 10} %)
                          </span>
                        )}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
    </>
  );
}
