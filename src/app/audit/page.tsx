import { AuditLog } from "@/components/audit-log";
import { Forbidden } from "@/components/forbidden";
import { requirePageRole } from "@/server/auth/page-guard";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const dynamic = "force-dynamic";

export default async function AuditPage() {
  const { user, allowed } = await requirePageRole("/audit", "sre");
  if (!allowed) return <Forbidden role="sre" current={user.role} />;
  await getQueryClient().prefetchQuery(trpc.audit.filterOptions.queryOptions());
  return (
    <HydrateClient>
      <h1>Audit log</h1>
      <p className="subtitle">
        Every change and sign-in, newest first. It cannot be edited or deleted. Click a row for its before and after.
      </p>
      <AuditLog />
    </HydrateClient>
  );
}
