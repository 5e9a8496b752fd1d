// The OTLP/HTTP JSON encoding of the agent's spans, and the export queue against a real local HTTP collector that
// holds its answers (a slow collector): bounded, dropping and counting beyond the bound, never waiting in record().
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { otlpTraceRequest, SpanExporter, type FinishedSpan } from "./span-export";

const span = (i: number, extra: Partial<FinishedSpan> = {}): FinishedSpan => ({
  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
  spanId: `00f067aa0ba902b${i % 10}`,
  name: "infer tiny-cnn",
  startUnixNano: 1_700_000_000_000_000_001n,
  endUnixNano: 1_700_000_000_005_000_001n,
  error: false,
  attributes: { "packrat.model": "tiny-cnn", "packrat.rows": 4, "packrat.compute_ms": 1.5, "packrat.ok": true },
  ...extra,
});

describe("otlpTraceRequest", () => {
  it("encodes resourceSpans → scopeSpans → spans with hex ids, nanosecond times as strings and typed attribute values", () => {
    const body = otlpTraceRequest({ "service.name": "packrat-agent" }, { name: "packrat-agent", version: "1.2.3" }, [
      span(1, { parentSpanId: "b7ad6b7169203331" }),
      span(2, { error: true }),
    ]);
    expect(body).toEqual({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "packrat-agent" } }] },
          scopeSpans: [
            {
              scope: { name: "packrat-agent", version: "1.2.3" },
              spans: [
                {
                  traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
                  spanId: "00f067aa0ba902b1",
                  parentSpanId: "b7ad6b7169203331",
                  name: "infer tiny-cnn",
                  kind: 2,
                  startTimeUnixNano: "1700000000000000001",
                  endTimeUnixNano: "1700000000005000001",
                  attributes: [
                    { key: "packrat.model", value: { stringValue: "tiny-cnn" } },
                    { key: "packrat.rows", value: { intValue: "4" } },
                    { key: "packrat.compute_ms", value: { doubleValue: 1.5 } },
                    { key: "packrat.ok", value: { boolValue: true } },
                  ],
                  status: { code: 0 },
                },
                expect.objectContaining({ spanId: "00f067aa0ba902b2", status: { code: 2 } }),
              ],
            },
          ],
        },
      ],
    });
    expect(body.resourceSpans[0]!.scopeSpans[0]!.spans[1]).not.toHaveProperty("parentSpanId");
  });
});

describe("SpanExporter", () => {
  const bodies: Array<{ resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ spanId: string }> }> }> }> = [];
  const held: ServerResponse[] = [];
  let hold = false;
  let url = "";
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on("data", (c: Buffer) => chunks.push(c));
    request.on("end", () => {
      expect(request.url).toBe("/v1/traces");
      expect(request.headers["content-type"]).toBe("application/json");
      bodies.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      if (hold) held.push(response);
      else response.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it("with the collector slow, holds up to its bound and drops (and counts) the rest at once; the held ones go once it answers", async () => {
    hold = true;
    let dropped = 0;
    let exported = 0;
    const exporter = new SpanExporter({
      endpoint: url,
      serviceName: "test",
      serviceVersion: "0",
      maxQueueSpans: 3,
      maxBatchSpans: 1,
      flushIntervalMs: 5,
      onDropped: (n) => {
        dropped += n;
      },
      onExported: (n) => {
        exported += n;
      },
    });
    exporter.record(span(0)); // a full batch of 1: sent at once, and the collector holds it
    while (held.length === 0) await new Promise((r) => setTimeout(r, 5));
    for (let i = 1; i <= 10; i++) exporter.record(span(i)); // 3 wait, 7 are dropped, record() returns at once
    expect(dropped).toBe(7);
    hold = false;
    for (const response of held.splice(0)) response.writeHead(200).end("{}");
    await exporter.close();
    expect(exported).toBe(4);
    expect(bodies.flatMap((b) => b.resourceSpans[0]!.scopeSpans[0]!.spans.map((s) => s.spanId))).toEqual([
      "00f067aa0ba902b0",
      "00f067aa0ba902b1",
      "00f067aa0ba902b2",
      "00f067aa0ba902b3",
    ]);
    exporter.record(span(11)); // closed: dropped
    expect(dropped).toBe(8);
  });

  it("an export that fails (collector down) drops its batch, counted, and reports the error", async () => {
    let dropped = 0;
    const errors: string[] = [];
    const exporter = new SpanExporter({
      endpoint: "http://127.0.0.1:1",
      serviceName: "test",
      serviceVersion: "0",
      flushIntervalMs: 5,
      onDropped: (n) => {
        dropped += n;
      },
      onError: (m) => errors.push(m),
    });
    exporter.record(span(1));
    exporter.record(span(2));
    await exporter.flush();
    expect(dropped).toBe(2);
    expect(errors).toEqual([expect.stringMatching(/^span export to http:\/\/127\.0\.0\.1:1\/v1\/traces failed/)]);
  });
});
