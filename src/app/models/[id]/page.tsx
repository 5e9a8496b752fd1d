import { notFound } from "next/navigation";
import { ModelDetail } from "@/components/models/model-detail";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { db } from "@/server/db/client";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";
import "@/components/models/models.css";

export const dynamic = "force-dynamic";

export default async function ModelPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/models/${encodeURIComponent(id)}`);
  if (!(await db().model.findUnique({ where: { id }, select: { id: true } }))) notFound();
  const queryClient = getQueryClient();
  await Promise.all([
    queryClient.prefetchQuery(trpc.models.get.queryOptions({ id })),
    queryClient.prefetchQuery(trpc.models.deployments.queryOptions({ modelId: id })),
    queryClient.prefetchQuery(trpc.models.profiles.queryOptions({ modelId: id })),
  ]);
  return (
    <HydrateClient>
      <ModelDetail id={id} canEdit={roleSatisfies(user.role, "ml_engineer")} />
    </HydrateClient>
  );
}
