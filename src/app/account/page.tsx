import { ChangePasswordForm } from "@/components/change-password-form";
import { requireUser } from "@/server/auth/page-guard";
import { roleLabels } from "@/server/auth/roles";

export const dynamic = "force-dynamic";

// Every signed-in user: who they are, and their own password.
export default async function AccountPage() {
  const user = await requireUser("/account");
  return (
    <>
      <h1>Your account</h1>
      <p className="subtitle">{user.name} · {user.email} · {roleLabels[user.role]}. An admin changes roles.</p>
      <ChangePasswordForm />
    </>
  );
}
