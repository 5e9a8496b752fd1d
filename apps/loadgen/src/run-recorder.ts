// Counts and times every request of a run. Latency is measured from the INTENDED send time (so a client that falls
// behind, or a server that makes it, shows up as latency: no coordinated omission); service time from the actual
// send and the send lag (actual − intended) are kept beside it. Requests intended during the warm-up window are
// counted apart and left out of every statistic. Percentiles come from the shared HDR histogram (µs, 3 digits).
import { LatencyHistogram, type LatencySummary } from "@packrat/core/stats/histogram";
import type { SendOutcome, TransportErrorKind } from "./outcome";

export interface RequestRecord {
  index: number;
  /** Times in ms from the start of the run. */
  intendedMs: number;
  sentMs?: number;
  headersMs?: number;
  doneMs?: number;
  outcome: SendOutcome["kind"] | "dropped";
  status?: number;
  transport?: TransportErrorKind;
  serverTiming?: Record<string, number>;
  warmup: boolean;
}

export interface Counts {
  /** Requests whose intended time came: sent + dropped. */
  intended: number;
  sent: number;
  ok: number;
  /** HTTP error responses by status. */
  httpErrors: Record<string, number>;
  /** 200s whose body was not an inference response. */
  badResponses: number;
  transportErrors: Record<TransportErrorKind, number>;
  /** Not sent: the in-flight cap was reached at the intended time (client-side drops). */
  dropped: number;
}

export interface TimelineSecond {
  /** Seconds from the start, by intended send time. */
  second: number;
  warmup: boolean;
  intended: number;
  sent: number;
  ok: number;
  errors: number;
  dropped: number;
  /** Latency (from intended) of this second's successful requests; absent when none succeeded. */
  p50Ms?: number;
  p99Ms?: number;
  maxMs?: number;
}

export type Summary = LatencySummary;

export interface RunStats {
  measured: Counts;
  warmup: Counts;
  /** The measured window (after warm-up) in ms; rates are per second of it. */
  windowMs: number;
  offeredPerS: number;
  okPerS: number;
  /** Successful requests, from intended send time to the end of the response. */
  latency: Summary & { histogram: string };
  /** Successful requests, from the actual send. */
  service: Summary;
  /** Actual − intended send time, every sent request. */
  sendLag: Summary;
  /** Server-Timing entries of successful responses, by name. */
  serverTiming: Record<string, Summary>;
  timeline: TimelineSecond[];
  /** The first distinct error messages, for diagnosis. */
  errorSamples: string[];
  records?: RequestRecord[];
}

export interface ProgressSnapshot {
  elapsedMs: number;
  inFlight: number;
  sent: number;
  ok: number;
  errors: number;
  dropped: number;
  p50Ms: number;
  p99Ms: number;
}

const MAX_ERROR_SAMPLES = 10;
const emptyCounts = (): Counts => ({
  intended: 0,
  sent: 0,
  ok: 0,
  httpErrors: {},
  badResponses: 0,
  transportErrors: { refused: 0, reset: 0, timed_out: 0, other: 0 },
  dropped: 0,
});

interface Second {
  intended: number;
  sent: number;
  ok: number;
  errors: number;
  dropped: number;
  latencies: number[];
}

function errorCount(c: Counts): number {
  return (
    Object.values(c.httpErrors).reduce((a, b) => a + b, 0) +
    c.badResponses +
    Object.values(c.transportErrors).reduce((a, b) => a + b, 0)
  );
}

function exactPercentile(sorted: number[], q: number): number {
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
}

export class RunRecorder {
  private readonly measured = emptyCounts();
  private readonly warm = emptyCounts();
  private readonly latency = LatencyHistogram.create();
  private readonly service = LatencyHistogram.create();
  private readonly lag = LatencyHistogram.create();
  private readonly timing = new Map<string, LatencyHistogram>();
  private readonly seconds: Second[] = [];
  private readonly errorSamples = new Set<string>();
  private readonly records?: RequestRecord[];

  constructor(private readonly options: { warmupMs: number; keepRecords?: boolean }) {
    if (options.keepRecords) this.records = [];
  }

  private counts(intendedMs: number): Counts {
    return intendedMs < this.options.warmupMs ? this.warm : this.measured;
  }

  private second(intendedMs: number): Second {
    const s = Math.max(0, Math.floor(intendedMs / 1000));
    for (let i = this.seconds.length; i <= s; i++)
      this.seconds.push({ intended: 0, sent: 0, ok: 0, errors: 0, dropped: 0, latencies: [] });
    return this.seconds[s]!;
  }

  dropped(index: number, intendedMs: number): void {
    const c = this.counts(intendedMs);
    c.intended++;
    c.dropped++;
    const s = this.second(intendedMs);
    s.intended++;
    s.dropped++;
    this.records?.push({ index, intendedMs, outcome: "dropped", warmup: c === this.warm });
  }

  sent(intendedMs: number, sentMs: number): void {
    const c = this.counts(intendedMs);
    c.intended++;
    c.sent++;
    const s = this.second(intendedMs);
    s.intended++;
    s.sent++;
    if (c === this.measured) this.lag.recordMs(Math.max(0, sentMs - intendedMs));
  }

  completed(
    index: number,
    intendedMs: number,
    sentMs: number,
    doneMs: number,
    outcome: SendOutcome,
    headersMs?: number,
  ): void {
    const c = this.counts(intendedMs);
    const s = this.second(intendedMs);
    const measuring = c === this.measured;
    if (outcome.kind === "ok") {
      c.ok++;
      s.ok++;
      const latencyMs = Math.max(0, doneMs - intendedMs);
      s.latencies.push(latencyMs);
      if (measuring) {
        this.latency.recordMs(latencyMs);
        this.service.recordMs(Math.max(0, doneMs - sentMs));
        for (const [name, ms] of Object.entries(outcome.serverTiming ?? {})) {
          let h = this.timing.get(name);
          if (!h) this.timing.set(name, (h = LatencyHistogram.create()));
          h.recordMs(ms);
        }
      }
    } else {
      s.errors++;
      if (outcome.kind === "http_error")
        c.httpErrors[String(outcome.status)] = (c.httpErrors[String(outcome.status)] ?? 0) + 1;
      else if (outcome.kind === "bad_response") c.badResponses++;
      else c.transportErrors[outcome.transport ?? "other"]++;
      const sample =
        `${outcome.kind}${outcome.transport ? ` (${outcome.transport})` : ""}: ${outcome.detail ?? ""}`.slice(0, 300);
      if (this.errorSamples.size < MAX_ERROR_SAMPLES) this.errorSamples.add(sample);
    }
    this.records?.push({
      index,
      intendedMs,
      sentMs,
      doneMs,
      headersMs,
      outcome: outcome.kind,
      status: outcome.status,
      transport: outcome.transport,
      serverTiming: outcome.serverTiming,
      warmup: !measuring,
    });
  }

  snapshot(elapsedMs: number, inFlight: number): ProgressSnapshot {
    const all = [this.warm, this.measured];
    const sum = (f: (c: Counts) => number) => all.reduce((a, c) => a + f(c), 0);
    return {
      elapsedMs,
      inFlight,
      sent: sum((c) => c.sent),
      ok: sum((c) => c.ok),
      errors: sum(errorCount),
      dropped: sum((c) => c.dropped),
      p50Ms: this.latency.percentileMs(50),
      p99Ms: this.latency.percentileMs(99),
    };
  }

  /** The run's statistics; `windowMs` is the measured window (the run's length minus the warm-up). */
  finish(windowMs: number): RunStats {
    const perS = (n: number) => (windowMs > 0 ? (n * 1000) / windowMs : 0);
    return {
      measured: this.measured,
      warmup: this.warm,
      windowMs,
      offeredPerS: perS(this.measured.intended),
      okPerS: perS(this.measured.ok),
      latency: { ...this.latency.summary(), histogram: this.latency.encode() },
      service: this.service.summary(),
      sendLag: this.lag.summary(),
      serverTiming: Object.fromEntries([...this.timing].map(([name, h]) => [name, h.summary()])),
      timeline: this.seconds.map((s, second) => {
        const sorted = s.latencies.sort((a, b) => a - b);
        return {
          second,
          warmup: second * 1000 < this.options.warmupMs, // the second starts inside the warm-up
          intended: s.intended,
          sent: s.sent,
          ok: s.ok,
          errors: s.errors,
          dropped: s.dropped,
          ...(sorted.length
            ? {
                p50Ms: exactPercentile(sorted, 0.5),
                p99Ms: exactPercentile(sorted, 0.99),
                maxMs: sorted[sorted.length - 1]!,
              }
            : {}),
        };
      }),
      errorSamples: [...this.errorSamples],
      ...(this.records ? { records: this.records.sort((a, b) => a.index - b.index) } : {}),
    };
  }
}

export function totalErrors(c: Counts): number {
  return errorCount(c);
}
