import Link from "next/link";
import { Forbidden } from "@/components/forbidden";
import { ProfileCompareView } from "@/components/profiles/profile-compare-view";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const dynamic = "force-dynamic";

const one = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v) ?? "";

export default async function CompareProfilesPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const query = await searchParams;
  const a = one(query.a);
  const b = one(query.b);
  const user = await requireUser(`/profiles/compare?a=${encodeURIComponent(a)}&b=${encodeURIComponent(b)}`);
  if (!roleSatisfies(user.role, "ml_engineer") && !roleSatisfies(user.role, "sre"))
    return <Forbidden role="ml_engineer" current={user.role} />;
  if (!a || !b) {
    return (
      <>
        <h1>Compare profiles</h1>
        <p className="subtitle" data-testid="compare-missing">
          Choose two profiles: open one (from its <Link href="/agents">deployment</Link>) and pick another under
          &quot;Compare with&quot;.
        </p>
      </>
    );
  }
  await getQueryClient().prefetchQuery(trpc.profiles.get.queryOptions({ id: a }));
  await getQueryClient().prefetchQuery(trpc.profiles.get.queryOptions({ id: b }));
  return (
    <HydrateClient>
      <ProfileCompareView a={a} b={b} />
    </HydrateClient>
  );
}
