// Export of the agent's spans, one per inference request, as OpenTelemetry's OTLP/HTTP JSON encoding (POST
// {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces), with no SDK: the encoding is a small JSON document. Spans wait in a
// bounded queue and leave in batches, one request to the collector at a time; when the queue is full (the collector
// slow or down) a new span is dropped and counted, so inference never waits on tracing.

/** One finished span (times in Unix nanoseconds, ids in lowercase hex). */
export interface FinishedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startUnixNano: bigint;
  endUnixNano: bigint;
  error: boolean;
  attributes: Record<string, string | number | boolean>;
  /** server (the request's span, the default) or internal (a phase within it). */
  kind?: "server" | "internal";
}

type AnyValue = { stringValue: string } | { intValue: string } | { doubleValue: number } | { boolValue: boolean };

const anyValue = (value: string | number | boolean): AnyValue =>
  typeof value === "string"
    ? { stringValue: value }
    : typeof value === "boolean"
      ? { boolValue: value }
      : Number.isInteger(value)
        ? { intValue: String(value) }
        : { doubleValue: value };

const attributes = (values: Record<string, string | number | boolean>) =>
  Object.entries(values).map(([key, value]) => ({ key, value: anyValue(value) }));

/** SPAN_KIND_INTERNAL / SPAN_KIND_SERVER; STATUS_CODE_UNSET / STATUS_CODE_ERROR (opentelemetry-proto trace.proto). */
const SPAN_KIND_INTERNAL = 1;
const SPAN_KIND_SERVER = 2;
const STATUS_UNSET = 0;
const STATUS_ERROR = 2;

/** An ExportTraceServiceRequest in OTLP's JSON encoding: hex ids, 64-bit integers as decimal strings. */
export function otlpTraceRequest(
  resource: Record<string, string>,
  scope: { name: string; version: string },
  spans: readonly FinishedSpan[],
) {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [
          {
            scope,
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId ? { parentSpanId: s.parentSpanId } : {}),
              name: s.name,
              kind: s.kind === "internal" ? SPAN_KIND_INTERNAL : SPAN_KIND_SERVER,
              startTimeUnixNano: String(s.startUnixNano),
              endTimeUnixNano: String(s.endUnixNano),
              attributes: attributes(s.attributes),
              status: { code: s.error ? STATUS_ERROR : STATUS_UNSET },
            })),
          },
        ],
      },
    ],
  };
}

/** performance.now() milliseconds as Unix nanoseconds. */
export const unixNanoOf = (performanceMs: number): bigint =>
  BigInt(Math.round((performance.timeOrigin + performanceMs) * 1e6));

export interface SpanExporterOptions {
  /** OTEL_EXPORTER_OTLP_ENDPOINT: the collector's base URL; spans go to {endpoint}/v1/traces. */
  endpoint: string;
  serviceName: string;
  serviceVersion: string;
  /** Spans held while the collector is busy or unreachable; beyond it new spans are dropped. */
  maxQueueSpans?: number;
  /** Spans per request to the collector. */
  maxBatchSpans?: number;
  /** How long a partial batch waits for more spans. */
  flushIntervalMs?: number;
  /** One export request's limit; a request that runs out is a failed export (its spans dropped). */
  exportTimeoutMs?: number;
  /** Spans dropped (queue full, or an export that failed), for the metrics. */
  onDropped?: (spans: number) => void;
  onExported?: (spans: number) => void;
  onError?: (message: string) => void;
}

export class SpanExporter {
  private readonly queue: FinishedSpan[] = [];
  private readonly url: string;
  private readonly maxQueue: number;
  private readonly maxBatch: number;
  private readonly flushIntervalMs: number;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;

  constructor(private readonly options: SpanExporterOptions) {
    this.url = `${options.endpoint.replace(/\/+$/, "")}/v1/traces`;
    this.maxQueue = options.maxQueueSpans ?? 2048;
    this.maxBatch = options.maxBatchSpans ?? 512;
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
  }

  /** Queue a finished span: never blocks, never throws; a full queue drops it (counted). */
  record(span: FinishedSpan): void {
    if (this.closed || this.queue.length >= this.maxQueue) {
      this.options.onDropped?.(1);
      return;
    }
    this.queue.push(span);
    if (this.queue.length >= this.maxBatch) this.kick();
    else
      this.timer ??= setTimeout(() => {
        this.timer = undefined;
        this.kick();
      }, this.flushIntervalMs).unref();
  }

  /** Send what is queued now (waiting for a request already on its way first). */
  async flush(): Promise<void> {
    while (this.inFlight || this.queue.length) {
      if (!this.inFlight) this.kick();
      await this.inFlight;
    }
  }

  /** Flush, then refuse new spans. */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
  }

  private kick(): void {
    if (this.inFlight || this.queue.length === 0) return;
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight = this.send(batch).finally(() => {
      this.inFlight = undefined;
      // More arrived while this one was on its way: a full batch goes at once, a partial one after the interval.
      if (this.queue.length >= this.maxBatch) this.kick();
      else if (this.queue.length && !this.closed)
        this.timer ??= setTimeout(() => {
          this.timer = undefined;
          this.kick();
        }, this.flushIntervalMs).unref();
    });
  }

  private async send(batch: FinishedSpan[]): Promise<void> {
    const body = JSON.stringify(
      otlpTraceRequest(
        { "service.name": this.options.serviceName, "service.version": this.options.serviceVersion },
        { name: "packrat-agent", version: this.options.serviceVersion },
        batch,
      ),
    );
    try {
      const response = await fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(this.options.exportTimeoutMs ?? 10_000),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) throw new Error(`collector answered ${response.status}`);
      this.options.onExported?.(batch.length);
    } catch (error) {
      this.options.onDropped?.(batch.length);
      this.options.onError?.(`span export to ${this.url} failed: ${(error as Error).message}`);
    }
  }
}
