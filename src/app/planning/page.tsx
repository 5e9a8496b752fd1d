import { redirect } from "next/navigation";
import { requireUser } from "@/server/auth/page-guard";

export const dynamic = "force-dynamic";

/** The nav's "Planning" entry opens the first planner; the tabs on each planner lead to the others. */
export default async function PlanningIndex() {
  await requireUser("/planning");
  redirect("/planning/latency-budget");
}
