import type { Metadata } from "next";
import { ApprovalsView } from "@/components/approvals/approvals-view";
import { requireUser } from "@/server/auth/page-guard";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";
import "@/components/optimizer/optimizer.css";
import "@/components/batching-sweeps/batching-sweeps.css";

export const metadata: Metadata = { title: "Approvals · Packrat" };
export const dynamic = "force-dynamic";

// Everyone signed in reads what is proposed and decided; SREs (and admins) approve or reject.
export default async function ApprovalsPage() {
  const user = await requireUser("/approvals");
  await getQueryClient().prefetchQuery(trpc.proposals.list.queryOptions({}));
  return (
    <HydrateClient>
      <h1>Approvals</h1>
      <p className="subtitle">
        A configuration reaches an agent only through an SRE&apos;s approval. Each pending proposal shows what it
        changes against the running configuration and what switching costs; approved, it becomes the deployment&apos;s
        next generation. A proposal expires after 24 h, or as soon as its deployment moves to another generation.
      </p>
      <ApprovalsView viewer={{ email: user.email, role: user.role }} />
    </HydrateClient>
  );
}
