import { Forbidden } from "@/components/forbidden";
import { LoadTestView } from "@/components/load-tests/load-test-view";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const dynamic = "force-dynamic";

// ML engineers and SREs run load tests and read them (like the deployment page they start from).
export default async function LoadTestPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/load-tests/${id}`);
  if (!roleSatisfies(user.role, "ml_engineer") && !roleSatisfies(user.role, "sre"))
    return <Forbidden role="ml_engineer" current={user.role} />;
  await getQueryClient().prefetchQuery(trpc.loadTests.get.queryOptions({ id }));
  return (
    <HydrateClient>
      <LoadTestView id={id} />
    </HydrateClient>
  );
}
