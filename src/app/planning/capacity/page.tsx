import type { Metadata } from "next";
import { parseLiveSourceParams, serializeLiveSource } from "@/contracts/live-source";
import { CapacityPlanner } from "@/components/planning/capacity-planner";
import { capacitySpec } from "@/components/planning/capacity-data";
import { PlanningTabs } from "@/components/planning/planning-tabs";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";

export const metadata: Metadata = { title: "Capacity · Packrat" };
export const dynamic = "force-dynamic";

export default async function CapacityPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const initial = parseUrlState(capacitySpec, params);
  const initialLiveSource = parseLiveSourceParams(params);
  // Any signed-in role may plan; the sign-in page brings the visitor back to this exact view.
  const query = [serializeLiveSource(initialLiveSource), serializeUrlState(capacitySpec, initial)]
    .filter(Boolean)
    .join("&");
  const user = await requireUser(`/planning/capacity?${query}`);
  return (
    <>
      <h1>Capacity</h1>
      <p className="subtitle">
        How latency climbs with utilization, the highest utilization a p99 budget allows, and the replicas a peak needs
        with headroom and failures.
      </p>
      <PlanningTabs current="/planning/capacity" />
      {/* A deployment's live numbers are the operators' (the procedures check it again). */}
      <CapacityPlanner
        initial={initial}
        initialLiveSource={initialLiveSource}
        canReadLive={roleSatisfies(user.role, "ml_engineer") || roleSatisfies(user.role, "sre")}
      />
    </>
  );
}
