// Readable summaries of runs for the terminal: the progress line while a run goes, and the closing summary.
import { formatDurationMs } from "./duration";
import type { SweepRow } from "./closed-loop";
import type { MaxRateSearchResult } from "./max-rate-search";
import { totalErrors, type Counts, type ProgressSnapshot, type RunStats, type Summary } from "./run-recorder";

export function formatProgress(s: ProgressSnapshot, totalMs?: number): string {
  const time = `${(s.elapsedMs / 1000).toFixed(1)}s${totalMs ? `/${(totalMs / 1000).toFixed(0)}s` : ""}`;
  const latency = s.ok ? ` | p50 ${formatDurationMs(s.p50Ms)} p99 ${formatDurationMs(s.p99Ms)}` : "";
  return `[${time}] sent ${s.sent} ok ${s.ok} err ${s.errors} drop ${s.dropped} in-flight ${s.inFlight}${latency}`;
}

const pct = (s: Summary) =>
  `p50 ${formatDurationMs(s.p50Ms)}  p90 ${formatDurationMs(s.p90Ms)}  p99 ${formatDurationMs(s.p99Ms)}  max ${formatDurationMs(s.maxMs)}  (mean ${formatDurationMs(s.meanMs)}, n=${s.count})`;

function errorBreakdown(c: Counts): string {
  const parts = [
    ...Object.entries(c.httpErrors).map(([status, n]) => `HTTP ${status}: ${n}`),
    ...(c.badResponses ? [`bad responses: ${c.badResponses}`] : []),
    ...Object.entries(c.transportErrors)
      .filter(([, n]) => n > 0)
      .map(([kind, n]) => `${kind.replace("_", " ")}: ${n}`),
  ];
  return parts.length ? ` (${parts.join(", ")})` : "";
}

export function formatRunSummary(run: RunStats): string[] {
  const m = run.measured;
  const lines = [
    `requests: ${m.intended} due, ${m.sent} sent, ${m.ok} ok, ${totalErrors(m)} errors${errorBreakdown(m)}, ${m.dropped} dropped by the in-flight cap` +
      (run.warmup.intended ? `; ${run.warmup.intended} in the warm-up, left out` : ""),
    `throughput: ${run.okPerS.toFixed(1)} ok/s of ${run.offeredPerS.toFixed(1)}/s offered, over ${formatDurationMs(run.windowMs)}`,
  ];
  if (run.latency.count) {
    lines.push(`latency from intended send (ok): ${pct(run.latency)}`);
    lines.push(`service time from actual send:   ${pct(run.service)}`);
    lines.push(
      `send lag (client lateness):      p50 ${formatDurationMs(run.sendLag.p50Ms)}  p99 ${formatDurationMs(run.sendLag.p99Ms)}  max ${formatDurationMs(run.sendLag.maxMs)}`,
    );
  }
  const timing = Object.entries(run.serverTiming);
  if (timing.length)
    lines.push(
      `server timing: ${timing.map(([name, s]) => `${name} p50 ${formatDurationMs(s.p50Ms)} p99 ${formatDurationMs(s.p99Ms)}`).join(", ")}`,
    );
  for (const sample of run.errorSamples.slice(0, 3)) lines.push(`  error: ${sample}`);
  return lines;
}

export function formatSweep(rows: readonly SweepRow[]): string[] {
  return [
    "concurrency    ok/s      p50       p90       p99   errors",
    ...rows.map(
      (r) =>
        `${String(r.concurrency).padStart(11)} ${r.okPerS.toFixed(1).padStart(7)} ${formatDurationMs(r.p50Ms).padStart(9)} ${formatDurationMs(r.p90Ms).padStart(9)} ${formatDurationMs(r.p99Ms).padStart(9)} ${String(r.errors).padStart(8)}`,
    ),
  ];
}

export function formatSearch(result: MaxRateSearchResult, p99LimitMs: number): string[] {
  return [
    ...result.steps.map((s) => `  ${s.rate.toFixed(1).padStart(9)}/s  ${s.passed ? "pass" : "FAIL"}  ${s.reason}`),
    result.maxRate === undefined
      ? `no rate tried keeps p99 ≤ ${p99LimitMs} ms`
      : `max rate with p99 ≤ ${p99LimitMs} ms: ${result.maxRate.toFixed(1)}/s${result.firstFailingRate === undefined ? " (the ramp's ceiling; raise --max-rate to look higher)" : ` (fails at ${result.firstFailingRate.toFixed(1)}/s)`}`,
  ];
}
