import { AgentTokens } from "@/components/agent-tokens";
import { AgentsView } from "@/components/agents/agents-view";
import { EnrollmentTokens } from "@/components/agents/enrollment-tokens";
import { Forbidden } from "@/components/forbidden";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { env } from "@/server/env";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";
import "@/components/agents/agents.css";

export const dynamic = "force-dynamic";

// SREs and admins manage agents; ML engineers read.
export default async function AgentsPage() {
  const user = await requireUser("/agents");
  const canManage = roleSatisfies(user.role, "sre");
  if (!canManage && !roleSatisfies(user.role, "ml_engineer")) return <Forbidden role="sre" current={user.role} />;
  await getQueryClient().prefetchQuery(trpc.agents.list.queryOptions());
  if (canManage) await getQueryClient().prefetchQuery(trpc.agentTokens.list.queryOptions());
  const controlPlane = env().PACKRAT_PUBLIC_URL;
  return (
    <HydrateClient>
      <h1>Agents</h1>
      <p className="subtitle">
        One agent per serving host. Agents pull their desired state from the control plane and keep serving when it is
        away; a deployment is a model version on an agent with a core budget.
      </p>
      <AgentsView canManage={canManage} />
      {canManage && (
        <>
          <section className="section attach-help panel">
            <strong>Attach a host</strong>
            {/* The token from a file only its owner reads: never on a command line (ps shows those) or in a shell history. */}
            <pre>{`# the agent or enrollment token in a file only you can read (chmod 600)
AGENT_TOKEN_FILE=~/.packrat-agent-token AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL=true \
  npm run agent -- --control-plane ${controlPlane}`}</pre>
          </section>
          <EnrollmentTokens />
          <AgentTokens />
        </>
      )}
    </HydrateClient>
  );
}
