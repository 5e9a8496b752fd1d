import type { Metadata } from "next";
import { AlertsView } from "@/components/alerts/alerts-view";
import { requireUser } from "@/server/auth/page-guard";
import { roleSatisfies } from "@/core/security/roles";
import { env } from "@/server/env";
import { HydrateClient, getQueryClient, trpc } from "@/trpc/server";

export const metadata: Metadata = { title: "Alerts · Packrat" };
export const dynamic = "force-dynamic";

// Everyone signed in reads alerts; SREs (and admins) acknowledge, resolve and set the webhook.
export default async function AlertsPage() {
  const user = await requireUser("/alerts");
  const canAct = roleSatisfies(user.role, "sre");
  // Awaited: the list renders on the server as the client will hydrate it (no "Loading…" to replace).
  await getQueryClient().prefetchQuery(trpc.alerts.list.queryOptions({ filter: "active" }));
  const e = env();
  return (
    <HydrateClient>
      <h1>Alerts</h1>
      <p className="subtitle">
        Evaluated by the control plane every {e.ALERT_EVALUATION_INTERVAL_MS / 1000} s from heartbeats, rollups over the
        last {Math.round(e.ALERT_WINDOW_MS / 60_000)} min and the deployments&apos; state. An alert resolves by itself
        when its condition clears (an agent that is back, a queue that stopped rejecting); resolving one by hand while
        it still holds opens it again.
      </p>
      <AlertsView
        canAct={canAct}
        linkObjects={canAct || roleSatisfies(user.role, "ml_engineer")}
        offlineAfterS={e.AGENT_OFFLINE_AFTER_MS / 1000}
      />
    </HydrateClient>
  );
}
