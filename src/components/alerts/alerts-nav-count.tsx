"use client";
// The navigation's alert count: open alerts (not yet acknowledged), red when one is critical; nothing when none.
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/trpc/react";
import "./alerts.css";

export function AlertsNavCount() {
  const trpc = useTRPC();
  const count = useQuery(trpc.alerts.count.queryOptions(undefined, { refetchInterval: 10_000 }));
  const n = count.data?.open ?? 0;
  if (n === 0) return null;
  return (
    <span
      className={`nav-count${count.data!.openCritical > 0 ? " critical" : ""}`}
      data-testid="alerts-nav-count"
      aria-label={`${n} open alert${n === 1 ? "" : "s"}`}
    >
      {n}
    </span>
  );
}
