// "Why this plan": one sentence derived from the plan it explains — its shape, the profile's measurement that
// decided the thread count of its widest instance, and its predicted latency against both baselines. It can
// never call a plan of several instances "one wide instance", or the reverse: the shape is read off the plan.
import type { ProfileCell } from "@/core/profile/profile";
import type { OptimizedPlan, PlanGroup } from "./types";

const times = (x: number) => `${x.toFixed(2)}×`;
const ms = (x: number) => `${x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2)} ms`;

function shape(instances: readonly PlanGroup[], cores: number): string {
  const n = instances.reduce((s, g) => s + g.count, 0);
  if (n === 1) {
    const t = instances[0]!.threads;
    return t === cores ? `one instance with all ${t} threads` : `one instance with ${t} of the ${cores} threads`;
  }
  return `${n} instances (${instances.map((g) => `${g.count} × ${g.threads} thread${g.threads === 1 ? "" : "s"}`).join(" + ")})`;
}

/** L[t][b] of the profile, if measured. */
function cell(cells: readonly ProfileCell[], threads: number, batch: number): number | undefined {
  return cells.find((c) => c.threads === threads && c.batch === batch)?.latencyMs;
}

/** The speed-up of `to` threads over `from` against the ratio of threads: below it, the added cores are used poorly. */
function speedText(from: number, to: number, fromMs: number, toMs: number): string {
  const gain = fromMs / toMs;
  const ratio = to / from;
  const verdict = gain >= 1 ? `${gain < ratio ? "only " : ""}${times(gain)} faster` : `${times(1 / gain)} slower`;
  return `going from ${from} to ${to} threads (${times(ratio)} the cores) is ${verdict} (${ms(fromMs)} → ${ms(toMs)})`;
}

/** The measurement behind the widest instance's thread count: the next wider (several instances) or narrower (one). */
function evidence(plan: OptimizedPlan, cells: readonly ProfileCell[]): string | null {
  const n = plan.instances.reduce((s, g) => s + g.count, 0);
  const widest = [...plan.instances].sort((a, b) => b.threads - a.threads || b.count - a.count)[0]!;
  const b = widest.batch;
  const threadCounts = [...new Set(cells.filter((c) => c.batch === b).map((c) => c.threads))].sort((x, y) => x - y);
  if (n === 1) {
    const narrower = threadCounts.filter((t) => t < widest.threads).at(-1);
    if (narrower === undefined) return null;
    return `at b = ${b}, ${speedText(narrower, widest.threads, cell(cells, narrower, b)!, widest.latencyMs)}, so splitting the cores into more instances does not pay`;
  }
  const wider = threadCounts.find((t) => t > widest.threads && t <= plan.cores);
  if (wider === undefined)
    return `the profile has no instance wider than ${widest.threads} thread${widest.threads === 1 ? "" : "s"} at b = ${b}`;
  return `at b = ${b}, ${speedText(widest.threads, wider, widest.latencyMs, cell(cells, wider, b)!)}, so the cores do more as smaller instances sharing the batch`;
}

function comparison(plan: OptimizedPlan): string {
  const parts: string[] = [];
  const { allThreads, oneThread } = plan.baselines;
  if (allThreads.available) parts.push(`${ms(allThreads.latencyMs)} with all threads in one instance`);
  if (oneThread.available) parts.push(`${ms(oneThread.latencyMs)} with one thread per instance`);
  return `predicted ${ms(plan.latencyMs)} for a batch of ${plan.batch}${parts.length ? `, against ${parts.join(" and ")}` : ""}`;
}

export function whyThisPlan(plan: OptimizedPlan, cells: readonly ProfileCell[]): string {
  const why = evidence(plan, cells);
  return `${shape(plan.instances, plan.cores)}: ${why ? `${why}; ` : ""}${comparison(plan)}`;
}
