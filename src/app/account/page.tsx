import { ApiTokens } from "@/components/api-tokens";
import { ChangePasswordForm } from "@/components/change-password-form";
import { requireUser } from "@/server/auth/page-guard";
import { roleLabels } from "@/core/security/roles";
import { grantableRoles } from "@/server/services/api-tokens-service";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const dynamic = "force-dynamic";

// The signed-in user's own page: who they are, their password, and their personal API tokens for the CLI and pipelines.
export default async function AccountPage() {
  const user = await requireUser("/account");
  await getQueryClient().prefetchQuery(trpc.apiTokens.list.queryOptions());
  return (
    <HydrateClient>
      <h1>Your account</h1>
      <p className="subtitle">
        {user.name} · {user.email} · {roleLabels[user.role]}. An admin changes roles. Personal API tokens let the{" "}
        <code>packrat</code> CLI and CI pipelines call the control plane as you, with a role no higher than yours. A
        token is shown once, expires, and can be revoked here at any time; creating and revoking are audited.
      </p>
      <ChangePasswordForm />
      <ApiTokens roles={grantableRoles(user.role).map((r) => ({ value: r, label: roleLabels[r] }))} />
    </HydrateClient>
  );
}
