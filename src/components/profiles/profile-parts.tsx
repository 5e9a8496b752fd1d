"use client";
// Small pieces the profile views share: the progress bar, status badge colours, how a rule and an input shape read,
// and a text download.
import { formatFixed } from "@/lib/planning/format";
import type { ProfileData } from "./profile-types";

export function downloadText(fileName: string, text: string, type = "text/csv;charset=utf-8"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement("a");
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function statusBadgeClass(status: string): string {
  return status === "complete" ? "ok" : status === "failed" || status === "partial" ? "bad" : "warn";
}

export function describeRule(rule: ProfileData["stoppingRule"]): string {
  if (rule.kind === "decision") {
    return `decision-aware rule: warm-up ${rule.warmup}, rounds of ${rule.roundIterations}, at least ${rule.minRounds} rounds, until no cell's 95% interval can move a plan by more than ${formatFixed(rule.tolerance * 100, 1)}%, ≤ ${rule.maxIterations} iterations, ≤ ${formatFixed(rule.maxCellMs / 1000, 0)} s per cell; interleaved`;
  }
  return rule.kind === "fixed"
    ? `paper rule: ${rule.warmup} warm-up + ${rule.iterations} iterations; interleaved`
    : `adaptive rule: warm-up ${rule.warmup}, 95% CI ≤ ${formatFixed(rule.relativeHalfWidth * 100, 1)}% of the mean, ${rule.minIterations}–${rule.maxIterations} iterations, ≤ ${formatFixed(rule.maxCellMs / 1000, 0)} s per cell`;
}

export const describeDims = (dims: Record<string, number>) => {
  const keys = Object.keys(dims).sort();
  return keys.length
    ? keys.map((k) => `${k} = ${dims[k]}`).join(", ")
    : "the version's serving shape (batch is the only dynamic dimension)";
};

export function ProgressBar({
  percent,
  label,
  testId,
  small = false,
}: {
  percent: number;
  label: string;
  testId?: string;
  small?: boolean;
}) {
  return (
    <div
      className={`progress-bar${small ? " small" : ""}`}
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={percent}
      data-testid={testId}
    >
      <div className="progress-fill" style={{ width: `${percent}%` }} />
    </div>
  );
}
