import { Forbidden } from "@/components/forbidden";
import { UsersAdmin } from "@/components/users-admin";
import { requirePageRole } from "@/server/auth/page-guard";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const dynamic = "force-dynamic";

export default async function AdminPage() {
  const { user, allowed } = await requirePageRole("/admin", "admin");
  // Checked before anything is loaded: a 403 page carries none of this page's data.
  if (!allowed) return <Forbidden role="admin" current={user.role} />;
  await getQueryClient().prefetchQuery(trpc.users.list.queryOptions());
  return (
    <HydrateClient>
      <h1>Users</h1>
      <p className="subtitle">
        One role per user. A role change, a deactivation or a password reset signs that user out everywhere at once.
        Every change is in the audit log.
      </p>
      <UsersAdmin currentUserId={user.id} />
    </HydrateClient>
  );
}
