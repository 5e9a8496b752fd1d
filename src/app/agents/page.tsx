import { AgentTokens } from "@/components/agent-tokens";
import { AgentsView } from "@/components/agents/agents-view";
import { EnrollmentTokens } from "@/components/agents/enrollment-tokens";
import { Forbidden } from "@/components/forbidden";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/server/auth/roles";
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
        One agent per serving host. Agents pull their desired state from the control plane and keep serving when it is away;
        a deployment is a model version on an agent with a core budget.
      </p>
      <AgentsView canManage={canManage} />
      {canManage && (
        <>
          <section className="section attach-help panel">
            <strong>Attach a host</strong>
            <pre>{`AGENT_TOKEN="$(cat /etc/packrat/agent-token)" npm run agent -- --control-plane ${controlPlane}`}</pre>
            <p className="muted small">The file holds an agent or enrollment token and is readable only by the agent&apos;s user (a command line is readable by every user of the host).</p>
          </section>
          <EnrollmentTokens />
          <AgentTokens />
        </>
      )}
    </HydrateClient>
  );
}
