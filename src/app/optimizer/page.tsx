import type { Metadata } from "next";
import { Forbidden } from "@/components/forbidden";
import { OptimizerView } from "@/components/optimizer/optimizer-view";
import { parseOptimizerParams, serializeOptimizerState } from "@/components/optimizer/optimizer-data";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import "@/components/agents/agents.css";
import "@/components/optimizer/optimizer.css";

export const metadata: Metadata = { title: "Optimizer · Packrat" };
export const dynamic = "force-dynamic";

// ML engineers and SREs propose; managers read (no Propose control).
export default async function OptimizerPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const initial = parseOptimizerParams(await searchParams);
  const query = serializeOptimizerState(initial);
  const user = await requireUser(`/optimizer${query ? `?${query}` : ""}`);
  const canPropose = roleSatisfies(user.role, "ml_engineer") || roleSatisfies(user.role, "sre");
  if (!canPropose && !roleSatisfies(user.role, "manager")) return <Forbidden role="ml_engineer" current={user.role} />;
  return (
    <>
      <h1>Optimizer</h1>
      <p className="subtitle">
        Packrat&apos;s plan for a deployment from a profile of its model: the ⟨instances, threads, batch⟩ configuration
        that serves a batch of B fastest on the deployment&apos;s cores, beside the two default configurations, checked
        against the model&apos;s SLO. A configuration reaches the agent only through an SRE&apos;s approval.
      </p>
      <OptimizerView initial={initial} canPropose={canPropose} />
    </>
  );
}
