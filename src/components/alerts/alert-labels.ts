// Words for the alert rules, shared by the Alerts page and its tests.
export const ruleLabels: Record<string, string> = {
  agent_offline: "Agent offline",
  serving_crash_loop: "Serving process crash loop",
  instance_crashed: "Instance crashed",
  model_failed: "Model failed",
  proposal_failed: "Proposal failed",
  auto_reverted: "Auto-reverted",
  latency_above_predicted: "Latency above predicted",
  utilization_above_safe: "Utilization above safe ρ",
  slo_breached: "SLO breached",
  queue_rejections: "Queue rejections",
};

export function ruleLabel(rule: string): string {
  return ruleLabels[rule] ?? rule.replace(/_/g, " ");
}

/** "3 min" / "2 h 5 min" / "45 s": how long an alert has held, from first to last seen (or until resolved). */
export function heldFor(firstSeen: Date | string, until: Date | string): string {
  const ms = Math.max(0, new Date(until).getTime() - new Date(firstSeen).getTime());
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  return `${h} h${min % 60 ? ` ${min % 60} min` : ""}`;
}
