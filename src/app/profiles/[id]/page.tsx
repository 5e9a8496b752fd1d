import { Forbidden } from "@/components/forbidden";
import { ProfileView } from "@/components/profiles/profile-view";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const dynamic = "force-dynamic";

// ML engineers read profiles; SREs too (they approve what the optimizer plans from them). Managers do not.
export default async function ProfilePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const user = await requireUser(`/profiles/${id}`);
  const isMl = roleSatisfies(user.role, "ml_engineer");
  if (!isMl && !roleSatisfies(user.role, "sre")) return <Forbidden role="ml_engineer" current={user.role} />;
  await getQueryClient().prefetchQuery(trpc.profiles.get.queryOptions({ id }));
  return (
    <HydrateClient>
      {/* Deleting: the profile's creator (an ML engineer), an sre or an admin; the view knows the creator. */}
      <ProfileView id={id} currentUserId={user.id} mayDeleteAny={roleSatisfies(user.role, "sre")} />
    </HydrateClient>
  );
}
