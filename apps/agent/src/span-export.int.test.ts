// Tracing export end to end: a real agent (supervisor + serving process) serving the tiny CNN over HTTP and gRPC,
// with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an HTTP collector in this test. One span per inference request
// (with its phases, queue → formation and busy wait, and compute, as child spans) arrives as OTLP/HTTP JSON, in the caller's trace when a traceparent came in (the span id the traceresponse named),
// a trace of its own otherwise; a collector that fails costs spans (counted on /metrics), never an answer.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OIP_PROTO_PATH } from "@packrat/contracts/oip-grpc";
import { buildTinyCnn } from "@packrat/modelzoo/tiny-models";
import { freePort, startAgent, waitFor, type RunningAgent } from "./test-agent-process";

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
  status: { code: number };
}
interface Export {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: Record<string, unknown> }> };
    scopeSpans: Array<{ spans: OtlpSpan[] }>;
  }>;
}

const ROW = 3 * 32 * 32;
const exports: Export[] = [];
let failing = false;
const collector = createServer((request: IncomingMessage, response: ServerResponse) => {
  const chunks: Buffer[] = [];
  request.on("data", (c: Buffer) => chunks.push(c));
  request.on("end", () => {
    if (
      failing ||
      request.method !== "POST" ||
      request.url !== "/v1/traces" ||
      request.headers["content-type"] !== "application/json"
    ) {
      response.writeHead(503).end();
      return;
    }
    exports.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
});
const spans = () => exports.flatMap((e) => e.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
const spanNamed = (spanId: string) =>
  waitFor(async () => spans().find((s) => s.spanId === spanId), 60_000, `span ${spanId}`);
/** The requests' own spans (kind server), not their phases. */
const requestSpans = () => spans().filter((s) => s.kind === 2);
const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value && Object.values(value)[0];
};

let agent: RunningAgent;
let client: grpc.Client;

beforeAll(async () => {
  await new Promise<void>((r) => collector.listen(0, "127.0.0.1", r));
  const grpcPort = await freePort();
  agent = await startAgent({
    modelBytes: buildTinyCnn({ seed: 9, producerVersion: "packrat-test" }),
    name: "tiny-cnn",
    plan: { instances: [{ count: 1, threads: 1, batch: 4 }], batchTimeoutMs: 2 },
    env: {
      AGENT_GRPC_PORT: String(grpcPort),
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(collector.address() as AddressInfo).port}`,
      OTEL_SERVICE_NAME: "packrat-agent-under-test",
    },
  });
  const loaded = grpc.loadPackageDefinition(
    protoLoader.loadSync(OIP_PROTO_PATH, { keepCase: true, longs: Number, defaults: true, oneofs: true }),
  );
  const Service = (loaded.inference as grpc.GrpcObject).GRPCInferenceService as grpc.ServiceClientConstructor;
  client = new Service(`127.0.0.1:${grpcPort}`, grpc.credentials.createInsecure());
});
afterAll(async () => {
  client?.close();
  await agent?.stop();
  collector.closeAllConnections();
  await new Promise((r) => collector.close(r));
});

const httpInfer = (rows: number, traceparent?: string) =>
  fetch(`${agent.url}/v2/models/tiny-cnn/infer`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(traceparent ? { traceparent } : {}) },
    body: JSON.stringify({
      inputs: [{ name: "input", shape: [rows, 3, 32, 32], datatype: "FP32", data: new Array(rows * ROW).fill(0.5) }],
    }),
  });

const TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT = "00f067aa0ba902b7";

describe("OTLP span export", () => {
  it("HTTP: the request's span, in the caller's trace under the caller's span, with the span id traceresponse named and the request's attributes", async () => {
    const response = await httpInfer(3, `00-${TRACE}-${PARENT}-01`);
    expect(response.status).toBe(200);
    await response.arrayBuffer();
    const [, traceId, spanId, flags] = response.headers.get("traceresponse")!.split("-");
    expect([traceId, flags]).toEqual([TRACE, "01"]);
    const span = await spanNamed(spanId!);
    expect(span).toMatchObject({
      traceId: TRACE,
      parentSpanId: PARENT,
      name: "infer tiny-cnn",
      kind: 2,
      status: { code: 0 },
    });
    expect(attribute(span, "packrat.model")).toBe("tiny-cnn");
    expect(attribute(span, "packrat.model.version")).toBe("1");
    expect(attribute(span, "packrat.rows")).toBe("3");
    expect(attribute(span, "packrat.protocol")).toBe("http");
    expect(attribute(span, "http.response.status_code")).toBe("200");
    expect(typeof attribute(span, "packrat.compute_ms")).toBe("number");
    // Unix nanoseconds as decimal strings, ending after they start, around now.
    expect(span.startTimeUnixNano).toMatch(/^\d{19}$/);
    expect(BigInt(span.endTimeUnixNano) >= BigInt(span.startTimeUnixNano)).toBe(true);
    expect(Math.abs(Number(BigInt(span.startTimeUnixNano) / 1_000_000n) - Date.now())).toBeLessThan(600_000);
    // The phases: queue (formation, busy wait) then compute, children of the request's span, inside it, in order.
    const child = (name: string, parent: string) =>
      waitFor(async () => spans().find((s) => s.name === name && s.parentSpanId === parent), 60_000, `${name} span`);
    const queue = await child("queue", spanId!);
    const [formation, busy, compute] = [
      await child("formation", queue.spanId),
      await child("busy wait", queue.spanId),
      await child("compute", spanId!),
    ];
    const ns = (s: OtlpSpan, end = false) => BigInt(end ? s.endTimeUnixNano : s.startTimeUnixNano);
    for (const phase of [queue, formation, busy, compute]) {
      expect(phase).toMatchObject({ traceId: TRACE, kind: 1 });
      expect(ns(phase, true) >= ns(phase), phase.name).toBe(true);
    }
    expect([ns(formation), ns(formation, true), ns(busy, true), ns(compute, true)]).toEqual([
      ns(queue),
      ns(busy),
      ns(compute),
      ns(compute, true),
    ]);
    expect(ns(queue, true)).toBe(ns(compute));
    // Within the request's span (1 ms of slack: the phases are placed from durations the dispatcher measured).
    expect(ns(queue) >= ns(span) - 1_000_000n).toBe(true);
    expect(ns(compute, true) <= ns(span, true)).toBe(true);
    const resource = exports.find((e) => e.resourceSpans.some((r) => r.scopeSpans.some((s) => s.spans.includes(span))))!
      .resourceSpans[0]!.resource;
    expect(resource.attributes).toContainEqual({
      key: "service.name",
      value: { stringValue: "packrat-agent-under-test" },
    });
  });

  it("gRPC: ModelInfer's span in the caller's trace (traceparent metadata), protocol grpc", async () => {
    const metadata = new grpc.Metadata({ waitForReady: true });
    const traceId = "0af7651916cd43dd8448eb211c80319c";
    metadata.set("traceparent", `00-${traceId}-b7ad6b7169203331-01`);
    const data = new Float32Array(2 * ROW).fill(0.5);
    const trailer = await new Promise<grpc.Metadata>((resolve, reject) => {
      const rpc = (client as unknown as Record<string, (...args: unknown[]) => grpc.ClientUnaryCall>).ModelInfer!.bind(
        client,
      );
      const call = rpc(
        {
          model_name: "tiny-cnn",
          inputs: [{ name: "input", datatype: "FP32", shape: [2, 3, 32, 32] }],
          raw_input_contents: [Buffer.from(data.buffer)],
        },
        metadata,
        { deadline: Date.now() + 60_000 },
        (error: grpc.ServiceError | null) => {
          if (error) reject(error);
        },
      );
      call.on("status", (status: grpc.StatusObject) => resolve(status.metadata));
    });
    const spanId = String(trailer.get("traceresponse")[0]).split("-")[2]!;
    const span = await spanNamed(spanId);
    expect(span).toMatchObject({ traceId, parentSpanId: "b7ad6b7169203331" });
    expect(attribute(span, "packrat.protocol")).toBe("grpc");
    expect(attribute(span, "packrat.rows")).toBe("2");
    await waitFor(
      async () => spans().find((s) => s.name === "compute" && s.parentSpanId === spanId),
      60_000,
      "the call's compute span",
    );
  });

  it("an untraced request gets a trace of its own; a caller that did not sample (flags 00) gets no exported span", async () => {
    const before = new Set(requestSpans().map((s) => s.spanId));
    const unsampledTrace = "11111111111111111111111111111111";
    const unsampled = await httpInfer(1, `00-${unsampledTrace}-${PARENT}-00`);
    expect(unsampled.headers.get("traceresponse")).toMatch(new RegExp(`^00-${unsampledTrace}-[0-9a-f]{16}-00$`));
    await unsampled.arrayBuffer();
    const untraced = await httpInfer(1);
    expect(untraced.headers.get("traceresponse")).toBeNull();
    await untraced.arrayBuffer();
    // Spans leave in order, so once the untraced one arrived the unsampled one would have too.
    const own = await waitFor(
      async () => requestSpans().find((s) => !before.has(s.spanId) && s.traceId !== unsampledTrace),
      60_000,
      "the untraced request's span",
    );
    expect(own.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(own.traceId).not.toBe(TRACE);
    expect(own.parentSpanId).toBeUndefined();
    expect(spans().some((s) => s.traceId === unsampledTrace)).toBe(false);
  });

  it("a failing collector costs spans, counted on /metrics, never an answer", async () => {
    const dropped = async () =>
      Number(
        /^packrat_trace_spans_dropped_total (\S+)$/m.exec(await (await fetch(`${agent.url}/metrics`)).text())?.[1] ??
          "NaN",
      );
    const exported = async () =>
      Number(
        /^packrat_trace_spans_exported_total (\S+)$/m.exec(await (await fetch(`${agent.url}/metrics`)).text())?.[1] ??
          "NaN",
      );
    const droppedBefore = await dropped();
    // The collector has the earlier tests' 3 successes (5 spans each); the agent counts them once it answered.
    await waitFor(async () => ((await exported()) >= 3 * 5 ? true : undefined), 60_000, "exported spans counted");
    failing = true;
    const answers = await Promise.all([1, 2, 3].map(() => httpInfer(1)));
    for (const a of answers) {
      expect(a.status).toBe(200);
      await a.arrayBuffer();
    }
    // Each success is its span and its four phases'.
    await waitFor(
      async () => ((await dropped()) >= droppedBefore + 3 * 5 ? true : undefined),
      60_000,
      "dropped spans counted",
    );
    failing = false;
  });
});
