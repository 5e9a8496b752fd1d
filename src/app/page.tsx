import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";
import { OverviewTiles } from "@/components/overview/overview-tiles";
import { SystemHealthCard } from "@/components/system-health-card";
import { requireUser } from "@/server/auth/page-guard";

export const dynamic = "force-dynamic";

export default async function OverviewPage() {
  await requireUser("/");
  await Promise.all([
    getQueryClient().prefetchQuery(trpc.system.health.queryOptions()),
    getQueryClient().prefetchQuery(trpc.overview.get.queryOptions()),
  ]);
  return (
    <HydrateClient>
      <h1>Overview</h1>
      <p className="subtitle">
        Packrat profiles each ONNX model on the machines that serve it and picks the split of cores into instances,
        threads and batch that minimizes batch latency.
      </p>
      <OverviewTiles />
      <div className="cards overview-health">
        <SystemHealthCard />
      </div>
    </HydrateClient>
  );
}
