// What the load-test page shows, read from the load generator's report (format packrat-loadgen/1): percentiles
// and the percentile spectrum from the HDR histogram, throughput, errors by class, the per-second timeline, and
// for a search its steps. Pure: the report in, plain numbers out (no NaN: absent values are null).
import { LatencyHistogram } from "@/core/stats/histogram";
import type { LoadgenReportJson } from "@/contracts/agent-jobs";

/** Percentiles of the spectrum chart: dense near the tail, where latency goals live. */
export const SPECTRUM_PERCENTILES = [0, 10, 25, 50, 75, 90, 95, 99, 99.5, 99.9, 99.99, 100] as const;

export interface ErrorClassCount {
  errorClass: string;
  count: number;
}

export interface LoadTestSummary {
  mode: "open" | "closed" | "search";
  open: null | {
    windowS: number;
    offeredPerS: number;
    okPerS: number;
    counts: { intended: number; sent: number; ok: number; dropped: number; errors: number };
    latency: {
      count: number;
      meanMs: number;
      p50Ms: number;
      p90Ms: number | null;
      p95Ms: number | null;
      p99Ms: number;
      maxMs: number;
    };
    /** Latency (ms, from intended send time) at each of SPECTRUM_PERCENTILES; empty with no successful request. */
    spectrum: Array<{ percentile: number; latencyMs: number }>;
    errors: ErrorClassCount[];
    timeline: Array<{
      second: number;
      warmup: boolean;
      intended: number;
      ok: number;
      errors: number;
      dropped: number;
      p50Ms: number | null;
      p99Ms: number | null;
    }>;
    serverTiming: Array<{ name: string; meanMs: number; p99Ms: number }>;
    errorSamples: string[];
  };
  search: null | {
    maxRatePerS: number | null;
    firstFailingRatePerS: number | null;
    steps: Array<{ ratePerS: number; p99Ms: number; intended: number; ok: number; passed: boolean; reason: string }>;
  };
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const count = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) && v > 0 ? v : 0);

/** HTTP errors by status ("HTTP 503"), bad responses, transport errors by kind, client-side drops; zeros left out. */
export function errorClasses(measured: Record<string, unknown>): ErrorClassCount[] {
  const out: ErrorClassCount[] = [];
  const http = (measured.httpErrors ?? {}) as Record<string, unknown>;
  for (const status of Object.keys(http).sort())
    if (count(http[status])) out.push({ errorClass: `HTTP ${status}`, count: count(http[status]) });
  if (count(measured.badResponses))
    out.push({ errorClass: "bad response (200 without an inference body)", count: count(measured.badResponses) });
  const transport = (measured.transportErrors ?? {}) as Record<string, unknown>;
  for (const kind of ["refused", "reset", "timed_out", "other"])
    if (count(transport[kind]))
      out.push({ errorClass: `transport: ${kind.replace("_", " ")}`, count: count(transport[kind]) });
  if (count(measured.dropped))
    out.push({ errorClass: "dropped by the client (in-flight cap)", count: count(measured.dropped) });
  return out;
}

export function summarizeLoadgenReport(report: LoadgenReportJson): LoadTestSummary {
  let open: LoadTestSummary["open"] = null;
  if (report.open) {
    const run = report.open as LoadgenReportJson["open"] & Record<string, unknown>;
    const measured = run.measured as Record<string, unknown> & {
      intended: number;
      sent: number;
      ok: number;
      dropped: number;
    };
    const errors = errorClasses(measured);
    const histogram = LatencyHistogram.decode(run.latency.histogram);
    const spectrum =
      histogram.count > 0
        ? SPECTRUM_PERCENTILES.map((p) => ({ percentile: p, latencyMs: histogram.percentileMs(p) }))
        : [];
    const latency = run.latency as Record<string, unknown> & {
      count: number;
      meanMs: number;
      p50Ms: number;
      p99Ms: number;
      maxMs: number;
    };
    const serverTiming = Object.entries(
      (run.serverTiming ?? {}) as Record<string, { meanMs?: unknown; p99Ms?: unknown }>,
    )
      .map(([name, s]) => ({ name, meanMs: num(s.meanMs), p99Ms: num(s.p99Ms) }))
      .filter((s): s is { name: string; meanMs: number; p99Ms: number } => s.meanMs !== null && s.p99Ms !== null);
    open = {
      windowS: run.windowMs / 1000,
      offeredPerS: run.offeredPerS,
      okPerS: run.okPerS,
      counts: {
        intended: measured.intended,
        sent: measured.sent,
        ok: measured.ok,
        dropped: measured.dropped,
        errors: errors.filter((e) => !e.errorClass.startsWith("dropped")).reduce((s, e) => s + e.count, 0),
      },
      latency: {
        count: latency.count,
        meanMs: latency.meanMs,
        p50Ms: latency.p50Ms,
        p90Ms: num(latency.p90Ms),
        p95Ms: num(latency.p95Ms),
        p99Ms: latency.p99Ms,
        maxMs: latency.maxMs,
      },
      spectrum,
      errors,
      timeline: run.timeline.map((t) => {
        const s = t as Record<string, unknown>;
        return {
          second: t.second,
          warmup: s.warmup === true,
          intended: t.intended,
          ok: t.ok,
          errors: t.errors,
          dropped: count(s.dropped),
          p50Ms: num(s.p50Ms),
          p99Ms: num(s.p99Ms),
        };
      }),
      serverTiming,
      errorSamples: Array.isArray(run.errorSamples)
        ? (run.errorSamples as unknown[]).filter((e): e is string => typeof e === "string").slice(0, 10)
        : [],
    };
  }
  const search: LoadTestSummary["search"] = report.search
    ? {
        maxRatePerS: num(report.search.maxRate),
        firstFailingRatePerS: num(report.search.firstFailingRate),
        steps: report.search.steps.map((s) => ({
          ratePerS: s.rate,
          p99Ms: s.p99Ms,
          intended: s.intended,
          ok: s.ok,
          passed: s.passed,
          reason: s.reason,
        })),
      }
    : null;
  return { mode: report.mode, open, search };
}
