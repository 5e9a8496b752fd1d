import type { Metadata } from "next";
import { BatchingWorkspace } from "@/components/batching-sweeps/batching-workspace";
import { batchingSpec } from "@/components/planning/batching-form";
import { PlanningTabs } from "@/components/planning/planning-tabs";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import "@/components/batching-sweeps/batching-sweeps.css";

export const metadata: Metadata = { title: "Batching · Packrat" };
export const dynamic = "force-dynamic";

const ID = /^[A-Za-z0-9_-]{1,64}$/;

export default async function BatchingPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const initial = parseUrlState(batchingSpec, params);
  const deployment = typeof params.deployment === "string" && ID.test(params.deployment) ? params.deployment : null;
  // Any signed-in role may plan; the sign-in page brings the visitor back to this exact view.
  const user = await requireUser(
    `/planning/batching?${[deployment ? `deployment=${deployment}` : "", serializeUrlState(batchingSpec, initial)].filter(Boolean).join("&")}`,
  );
  // ML engineers and SREs propose (a configuration on the Optimizer, or a sweep here); SREs stop a running sweep.
  const canPropose = roleSatisfies(user.role, "ml_engineer") || roleSatisfies(user.role, "sre");
  return (
    <>
      <h1>Batching</h1>
      <p className="subtitle">
        What a batching window and a batch cap buy in throughput and cost in latency: the knee, the Pareto frontier at
        an arrival rate, and the screens a configuration must pass before anyone approves it — and, from a sweep on a
        deployment, what the configurations measured.
      </p>
      <PlanningTabs current="/planning/batching" />
      <BatchingWorkspace
        initial={initial}
        initialDeployment={deployment}
        canPropose={canPropose}
        canStop={roleSatisfies(user.role, "sre")}
      />
    </>
  );
}
