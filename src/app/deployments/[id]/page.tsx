import { DeploymentView } from "@/components/agents/deployment-view";
import { Forbidden } from "@/components/forbidden";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";
import "@/components/agents/agents.css";

export const dynamic = "force-dynamic";

export default async function DeploymentPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/deployments/${id}`);
  const canManage = roleSatisfies(user.role, "sre");
  if (!canManage && !roleSatisfies(user.role, "ml_engineer")) return <Forbidden role="sre" current={user.role} />;
  await getQueryClient().prefetchQuery(trpc.deployments.get.queryOptions({ id }));
  return (
    <HydrateClient>
      <DeploymentView id={id} canManage={canManage} canProfile={roleSatisfies(user.role, "ml_engineer")} />
    </HydrateClient>
  );
}
