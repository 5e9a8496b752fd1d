import Link from "next/link";

export const PLANNING_PAGES = [
  { href: "/planning/latency-budget", label: "Latency budget" },
  { href: "/planning/capacity", label: "Capacity" },
  { href: "/planning/batching", label: "Batching" },
  { href: "/planning/kv-cache", label: "KV cache" },
] as const;

export type PlanningHref = (typeof PLANNING_PAGES)[number]["href"];

/** The planners link to each other; each keeps its own URL state. */
export function PlanningTabs({ current }: { current: PlanningHref }) {
  return (
    <nav className="planning-tabs" aria-label="Planning">
      {PLANNING_PAGES.map((p) => (
        <Link key={p.href} href={p.href} aria-current={p.href === current ? "page" : undefined}>
          {p.label}
        </Link>
      ))}
    </nav>
  );
}
