// The JSON report a run writes (--out): configuration, counts, HDR histograms (base64, mergeable), per-second
// timeline, and the sweep or search when those modes ran. Per-request records are never written.
import type { ClosedLoopResult, SweepRow } from "./closed-loop";
import type { LoadgenConfig } from "./cli-options";
import type { MaxRateSearchResult } from "./max-rate-search";
import type { OpenLoopResult } from "./open-loop";
import type { RunStats } from "./run-recorder";

export const REPORT_FORMAT = "packrat-loadgen/1";

export interface LoadgenReport {
  format: typeof REPORT_FORMAT;
  startedAt: string;
  finishedAt: string;
  target: string;
  model: string;
  mode: LoadgenConfig["mode"];
  config: Record<string, unknown>;
  schedule?: { requests: number; truncated: boolean };
  open?: Omit<OpenLoopResult, "records">;
  closed?: { rows: SweepRow[]; runs: Array<Omit<ClosedLoopResult, "records">> };
  search?: MaxRateSearchResult;
}

function withoutRecords<T extends RunStats>(run: T): Omit<T, "records"> {
  const { records: _records, ...rest } = run;
  return rest;
}

/** The configuration as the report states it (a replayed trace by its size, not its rows). */
export function describeConfig(config: LoadgenConfig): Record<string, unknown> {
  const pattern =
    config.pattern.kind === "replay"
      ? { kind: "replay", arrivals: config.pattern.timesMs.length, speed: config.pattern.speed }
      : config.pattern;
  return {
    pattern,
    durationMs: config.durationMs,
    warmupMs: config.warmupMs,
    seed: config.seed,
    protocol: config.protocol,
    binary: config.binary,
    batch: config.batch,
    shapes: config.shapes,
    inputFiles: config.inputFiles,
    distinctInputs: config.distinctInputs,
    maxInFlight: config.maxInFlight,
    timeoutMs: config.timeoutMs,
    maxRequests: config.maxRequests,
    ...(config.mode === "closed" ? { concurrency: config.concurrency } : {}),
    ...(config.mode === "search" ? { search: config.search } : {}),
  };
}

export function buildReport(
  config: LoadgenConfig,
  startedAt: Date,
  parts: {
    schedule?: { requests: number; truncated: boolean };
    open?: OpenLoopResult;
    closed?: { rows: SweepRow[]; runs: ClosedLoopResult[] };
    search?: MaxRateSearchResult;
  },
): LoadgenReport {
  return {
    format: REPORT_FORMAT,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    target: config.url.origin + config.url.pathname.replace(/\/+$/, ""),
    model: config.model,
    mode: config.mode,
    config: describeConfig(config),
    ...(parts.schedule ? { schedule: parts.schedule } : {}),
    ...(parts.open ? { open: withoutRecords(parts.open) } : {}),
    ...(parts.closed ? { closed: { rows: parts.closed.rows, runs: parts.closed.runs.map(withoutRecords) } } : {}),
    ...(parts.search ? { search: parts.search } : {}),
  };
}
