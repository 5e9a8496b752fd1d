import { redirect } from "next/navigation";
import { SignInForm } from "@/components/sign-in-form";
import { currentUser, safeNextPath } from "@/server/auth/page-guard";
import { DEMO_PASSWORD, demoUsers } from "@/server/auth/seed-users";
import { env, isLoopbackHost } from "@/server/env";

export const dynamic = "force-dynamic";

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const next = safeNextPath((await searchParams).next);
  if (await currentUser()) redirect(next);
  return (
    <div className="auth-card">
      <div className="brand">Packrat</div>
      <div className="tagline">model serving control plane</div>
      <h1>Sign in</h1>
      <SignInForm next={next} publicUrl={env().PACKRAT_PUBLIC_URL} />
      {/* The password only where no other machine can reach this page (the dashboard listens on loopback). */}
      {env().PACKRAT_DEMO_USERS && (
        <p className="hint" data-testid="demo-hint">
          Demo users ({demoUsers.map((u) => u.email.split("@")[0]).join(", ")} @example.com)
          {isLoopbackHost(env().HOST) ? (
            <>
              , password <code>{DEMO_PASSWORD}</code>.
            </>
          ) : (
            " are on: ask the operator for the password."
          )}
        </p>
      )}
    </div>
  );
}
