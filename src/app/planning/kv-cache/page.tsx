import type { Metadata } from "next";
import { KvCachePlanner } from "@/components/planning/kv-cache-planner";
import { kvCacheSpec } from "@/components/planning/kv-cache-data";
import { PlanningTabs } from "@/components/planning/planning-tabs";
import { parseUrlState, serializeUrlState } from "@/lib/planning/url-state";
import { requireUser } from "@/server/auth/page-guard";

export const metadata: Metadata = { title: "KV cache · Packrat" };
export const dynamic = "force-dynamic";

export default async function KvCachePage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const initial = parseUrlState(kvCacheSpec, await searchParams);
  // Any signed-in role may plan; the sign-in page brings the visitor back to this exact view.
  await requireUser(`/planning/kv-cache?${serializeUrlState(kvCacheSpec, initial)}`);
  return (
    <>
      <h1>KV cache</h1>
      <p className="subtitle">
        How much memory an LLM&apos;s key-value cache takes per token and per sequence, how many sequences fit beside
        the weights, and what decode and speculative decoding can reach.
      </p>
      <PlanningTabs current="/planning/kv-cache" />
      <KvCachePlanner initial={initial} />
    </>
  );
}
