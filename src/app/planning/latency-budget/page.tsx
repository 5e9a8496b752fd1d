import type { Metadata } from "next";
import { parseLiveSourceParams, serializeLiveSource } from "@/contracts/live-source";
import { LatencyBudgetPlanner } from "@/components/planning/latency-budget-planner";
import { latencyBudgetSpec } from "@/components/planning/latency-budget-data";
import { PlanningTabs } from "@/components/planning/planning-tabs";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";

export const metadata: Metadata = { title: "Latency budget · Packrat" };
export const dynamic = "force-dynamic";

export default async function LatencyBudgetPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const initial = parseUrlState(latencyBudgetSpec, params);
  const initialLiveSource = parseLiveSourceParams(params);
  // Any signed-in role may plan; the sign-in page brings the visitor back to this exact view.
  const query = [serializeLiveSource(initialLiveSource), serializeUrlState(latencyBudgetSpec, initial)]
    .filter(Boolean)
    .join("&");
  const user = await requireUser(`/planning/latency-budget?${query}`);
  return (
    <>
      <h1>Latency budget</h1>
      <p className="subtitle">
        Where a request&apos;s milliseconds go, stage by stage, against its p99 deadline: the remaining budget, each
        stage&apos;s share, and what a faster stage buys alone and under load.
      </p>
      <PlanningTabs current="/planning/latency-budget" />
      {/* A deployment's live numbers are the operators' (the procedures check it again). */}
      <LatencyBudgetPlanner
        initial={initial}
        initialLiveSource={initialLiveSource}
        canReadLive={roleSatisfies(user.role, "ml_engineer") || roleSatisfies(user.role, "sre")}
      />
    </>
  );
}
