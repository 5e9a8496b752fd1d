// The agent's HTTP face: the Open Inference Protocol (KServe v2) REST API, Prometheus /metrics and /agent/status.
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import type { Socket } from "node:net";
import { tokenMatches } from "./bearer-token";
import { DispatchError } from "./dispatcher";
import { inferencesInFlight } from "./in-flight";
import { accountRequest } from "./inference-accounting";
import { BodyBudget, BodyCharge, JSON_HEAP_FACTOR } from "./body-budget";
import { BinaryRequestStream } from "./binary-request-stream";
import { BodyBudgetError, BodyIncompleteError, BodyTooLargeError, readBody, streamBody } from "./http-body";
import { jsonBodyLimit } from "./json-body-limit";
import type { AgentMetrics } from "./metrics";
import { encodeInferResponseParts, OipError, parseInferRequest, type ParsedInferRequest } from "./oip-codec";
import { LINGER_MS, rawErrorResponse } from "./raw-http-response";
import type { ServedModel } from "./served-model";
import type { SpanExporter } from "./span-export";
import { parseTraceparent, requestSpan, traceResponse } from "./trace-context";
import { tritonModelConfig, tritonModelStats } from "./triton-extensions";
import { serverTiming } from "./server-timing";

/** The OIP extensions this server implements, as GET /v2 lists them (Triton's names). */
export const HTTP_EXTENSIONS = ["binary_tensor_data", "model_configuration", "statistics"];

/** A binary body larger than this gets its instance's heads-up when this much of it is left to arrive. */
export const HEADS_UP_LEFT_BYTES = 128 * 1024;

export interface OipServerOptions {
  models: () => Map<string, ServedModel>;
  metrics: AgentMetrics;
  maxBodyBytes: number;
  /** Body bytes (JSON charged JSON_HEAP_FACTOR times) this process may hold at once; past it 503 + Retry-After. */
  maxBodyBytesInFlight: number;
  /** Rows one request may carry (the queue's limit): bounds what a JSON body to a model can need. */
  maxRequestRows: number;
  inferToken?: string;
  /** Guards /metrics and /agent/status; unset, the infer token does (when set). */
  metricsToken?: string;
  /** When set, every inference request's span is exported through it. */
  spans?: SpanExporter;
  faultInjection: boolean;
  /** False while starting or draining: readiness is 503 and inference refused. */
  accepting: () => boolean;
  status: () => unknown;
  version: string;
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  // The connection may be gone already (a client that hung up mid-upload): nothing to answer.
  if (response.headersSent || response.socket?.destroyed || response.socket?.writableEnded) return;
  const payload = Buffer.from(JSON.stringify(body));
  response.writeHead(status, { "content-type": "application/json", "content-length": payload.length, ...headers });
  response.end(payload);
}

const error = (response: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
  send(response, status, { error: message }, headers);

/**
 * 413 with a lingering close. Node destroys a Connection: close socket right after the response, and closing with
 * the client's unread upload in the buffer sends a reset that can destroy the 413 before the client reads it
 * (fuzz: a 32 MiB upload to a 16 MiB limit saw a reset instead of the answer). So the answer goes straight onto
 * the socket, then FIN, then the rest of the upload is read and dropped (never buffered) for at most LINGER_MS.
 */
function refuseBody(
  request: IncomingMessage,
  response: ServerResponse,
  message: string,
  status = 413,
  headers: Record<string, string> = {},
): void {
  const socket = request.socket;
  if (response.headersSent || socket.destroyed || !socket.writable) return;
  socket.end(rawErrorResponse(status, message, headers));
  request.resume();
  socket.setTimeout(LINGER_MS, () => socket.destroy());
}

/**
 * Infer bodies are JSON, or JSON + binary tensors (the binary extension). Also accepted: text/plain and
 * form-urlencoded, which fetch and `curl -d` put on a JSON string by default. Anything else, a charset other
 * than UTF-8, or a Content-Encoding is refused with 415 before the body is read.
 */
const INFER_MEDIA_TYPES = new Set([
  "application/json",
  "application/octet-stream",
  "text/plain",
  "application/x-www-form-urlencoded",
]);

export function inferContentProblem(headers: IncomingHttpHeaders): string | undefined {
  const encoding = headers["content-encoding"]?.trim().toLowerCase();
  if (encoding && encoding !== "identity")
    return `Content-Encoding ${encoding} is not supported: send the body uncompressed`;
  const type = headers["content-type"]?.trim();
  if (!type) return undefined;
  // A client sends the same few values on every request: each is judged once.
  const known = CONTENT_TYPE_PROBLEMS.get(type);
  if (known !== undefined) return known || undefined;
  const problem = contentTypeProblem(type);
  if (CONTENT_TYPE_PROBLEMS.size < CONTENT_TYPES_KEPT) CONTENT_TYPE_PROBLEMS.set(type, problem ?? "");
  return problem;
}

/** Content-Type values already judged ("" when acceptable), up to CONTENT_TYPES_KEPT of them. */
const CONTENT_TYPE_PROBLEMS = new Map<string, string>();
const CONTENT_TYPES_KEPT = 64;

function contentTypeProblem(type: string): string | undefined {
  const [media = "", ...parameters] = type.split(";").map((p) => p.trim().toLowerCase());
  if (!INFER_MEDIA_TYPES.has(media))
    return `Content-Type ${media} is not supported: send application/json, or application/octet-stream with Inference-Header-Content-Length`;
  const charset = parameters
    .find((p) => p.startsWith("charset="))
    ?.slice("charset=".length)
    .replace(/"/g, "");
  if (charset && !["utf-8", "utf8", "us-ascii"].includes(charset))
    return `charset ${charset} is not supported: send UTF-8`;
  return undefined;
}

/**
 * A request target that is its own URL path: no query, no escapes, no dot segments (checked beside), nothing a URL
 * parser would rewrite. Read as it is, without building a URL per request.
 */
const PLAIN_PATH = /^\/(?!\/)[A-Za-z0-9_\-.~/]*$/;

export function createOipServer(options: OipServerOptions): Server {
  const { metrics } = options;
  const budget = new BodyBudget(options.maxBodyBytesInFlight);
  const statusToken = options.metricsToken ?? options.inferToken;
  // A JSON body no larger than any request to the model could need, and small enough to fit the budget alone.
  const jsonLimits = new WeakMap<ServedModel, number>();
  const jsonLimitOf = (model: ServedModel) => {
    let limit = jsonLimits.get(model);
    if (limit === undefined) {
      limit = Math.min(
        jsonBodyLimit(model.metadata, options.maxRequestRows, options.maxBodyBytes),
        Math.floor(options.maxBodyBytesInFlight / JSON_HEAP_FACTOR),
      );
      jsonLimits.set(model, limit);
    }
    return limit;
  };

  async function infer(request: IncomingMessage, response: ServerResponse, model: ServedModel): Promise<void> {
    const startedAt = performance.now();
    const declared = Number(request.headers["content-length"]);
    // Alone: the instance's thread wakes while the body is read and parsed, not after. A large binary body is
    // read for longer than the thread stays awake (and on a small host its spin would take a CPU the upload needs):
    // its heads-up goes when the last HEADS_UP_LEFT_BYTES are on their way.
    let lateHeadsUp =
      request.headers["inference-header-content-length"] !== undefined && declared > HEADS_UP_LEFT_BYTES;
    if (!lateHeadsUp && inferencesInFlight.alone && model.state === "ready") model.headsUp();
    const name = model.metadata.name;
    let rows = 0;
    // A traced caller gets the agent's span in its trace on every answer (writeHead merges it in).
    const trace = parseTraceparent(request.headers.traceparent);
    // Ids are drawn only when someone will see them: a traced caller, or span export.
    const span = trace || options.spans ? requestSpan(trace) : undefined;
    if (trace && span) response.setHeader("traceresponse", traceResponse(trace, span.spanId));
    const finish = (
      status: number,
      version = model.metadata.version,
      phases?: Parameters<typeof accountRequest>[2]["phases"],
    ) =>
      accountRequest(
        metrics,
        model,
        { protocol: "http", status, rows, version, startedAt, phases, span },
        options.spans,
      );
    if (options.inferToken && !tokenMatches(request.headers.authorization, options.inferToken)) {
      finish(401);
      return error(response, 401, "inference needs a bearer token (Authorization: Bearer …)", {
        "www-authenticate": "Bearer",
      });
    }
    if (!options.accepting() || model.state !== "ready") {
      finish(503);
      return error(
        response,
        503,
        model.state === "failed" ? `model ${name} failed: ${model.failureReason}` : `model ${name} is not ready`,
        { "retry-after": "1" },
      );
    }
    const contentProblem = inferContentProblem(request.headers);
    if (contentProblem) {
      finish(415);
      return error(response, 415, contentProblem);
    }
    const headerLength = request.headers["inference-header-content-length"];
    const binary = headerLength !== undefined;
    const charge = new BodyCharge(budget, binary ? 1 : JSON_HEAP_FACTOR);
    try {
      let parsed: ParsedInferRequest;
      let deserializeMs: number;
      if (binary) {
        // Decoded as it arrives: the header parsed once it is in, the tensor bytes copied straight into the tensors.
        const stream = new BinaryRequestStream(
          (Array.isArray(headerLength) ? headerLength[0] : headerLength) ?? "",
          Number.isFinite(declared) && declared >= 0 ? declared : undefined,
          model.metadata,
        );
        let left = declared;
        await streamBody(request, Math.min(options.maxBodyBytes, options.maxBodyBytesInFlight), charge, (chunk) => {
          stream.push(chunk);
          left -= chunk.length;
          if (lateHeadsUp && left <= HEADS_UP_LEFT_BYTES && stream.headerDone) {
            lateHeadsUp = false;
            if (inferencesInFlight.alone && model.state === "ready") model.headsUp();
          }
        });
        const finishStart = performance.now();
        parsed = stream.finish();
        deserializeMs = stream.parseMs + (performance.now() - finishStart);
      } else {
        let body: Buffer | undefined = await readBody(request, jsonLimitOf(model), charge);
        const parseStart = performance.now();
        parsed = parseInferRequest(body, undefined, model.metadata);
        deserializeMs = performance.now() - parseStart;
        // Parsed into tensors: the body and its JSON are garbage now.
        body = undefined;
      }
      // The body's share of the budget goes back: what is left of it is the tensors.
      charge.release();
      rows = parsed.rows;
      const result = await model.dispatcher.infer(parsed.inputs, {
        deadlineMs: parsed.deadlineMs,
        elapsedMs: performance.now() - startedAt,
        fault: options.faultInjection ? parsed.fault : undefined,
      });
      const t = result.timing;
      const encodeStart = performance.now();
      const computedBy =
        result.version && result.version !== model.metadata.version
          ? { ...model.metadata, version: result.version }
          : model.metadata;
      const { text, binaryParts } = encodeInferResponseParts(computedBy, parsed, result.outputs);
      if (binaryParts.length === 0) {
        // All JSON: the text goes out as it is, behind the head in the same write (no Buffer of it, no writev).
        const serializeMs = performance.now() - encodeStart;
        response.writeHead(200, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
          // Where the time went, for clients and the load generator (Server-Timing, in ms).
          "server-timing": serverTiming(t),
        });
        response.end(text);
        finish(200, computedBy.version, { deserializeMs, timing: t, serializeMs, resultAt: encodeStart });
        return;
      }
      const header = Buffer.from(text);
      const out = Buffer.concat([header, ...binaryParts]);
      const serializeMs = performance.now() - encodeStart;
      response.writeHead(200, {
        "content-type": "application/octet-stream",
        "content-length": out.length,
        "inference-header-content-length": String(header.length),
        "server-timing": serverTiming(t),
      });
      response.end(out);
      finish(200, computedBy.version, { deserializeMs, timing: t, serializeMs, resultAt: encodeStart });
    } catch (caught) {
      charge.release();
      if (caught instanceof BodyTooLargeError) {
        finish(413);
        return refuseBody(request, response, caught.message);
      }
      if (caught instanceof BodyBudgetError) {
        finish(503);
        return refuseBody(request, response, caught.message, 503, { "retry-after": "1" });
      }
      if (caught instanceof BodyIncompleteError) {
        finish(400);
        return error(response, 400, caught.message);
      }
      if (caught instanceof OipError) {
        finish(caught.status);
        return error(response, caught.status, caught.message);
      }
      if (caught instanceof DispatchError) {
        finish(caught.status);
        return error(
          response,
          caught.status,
          caught.message,
          caught.retryAfterS ? { "retry-after": String(caught.retryAfterS) } : {},
        );
      }
      finish(500);
      return error(response, 500, `internal error: ${(caught as Error).message}`);
    }
  }

  /** The versions a model has statistics for, the one it serves first. */
  function versionsWithStats(model: ServedModel): string[] {
    return [
      model.metadata.version,
      ...[...model.statistics.byVersion.keys()].filter((v) => v !== model.metadata.version),
    ];
  }

  function metadataOf(model: ServedModel) {
    const m = model.metadata;
    return {
      name: m.name,
      versions: [m.version],
      platform: "onnx_onnxv1",
      inputs: m.inputs.map(({ name, datatype, shape }) => ({ name, datatype, shape })),
      outputs: m.outputs.map(({ name, datatype, shape }) => ({ name, datatype, shape })),
    };
  }

  async function route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const target = request.url ?? "/";
    let pathname: string;
    if (PLAIN_PATH.test(target) && !target.includes("/.")) pathname = target;
    else {
      try {
        pathname = new URL(target, "http://agent").pathname;
      } catch {
        return error(response, 400, "the request target is not a valid URL");
      }
    }
    const path = pathname.replace(/\/+$/, "") || "/";
    const method = request.method ?? "GET";
    const models = options.models();

    if (method === "GET" && path === "/v2")
      return send(response, 200, { name: "packrat-agent", version: options.version, extensions: HTTP_EXTENSIONS });
    if (method === "GET" && path === "/v2/health/live") return send(response, 200, { live: true });
    if (method === "GET" && path === "/v2/health/ready") {
      const ready = options.accepting() && models.size > 0 && [...models.values()].every((m) => m.state === "ready");
      return send(response, ready ? 200 : 503, { ready });
    }
    if (method === "POST" && path === "/v2/repository/index") {
      await readBody(request, 64 * 1024).catch(() => Buffer.alloc(0));
      return send(
        response,
        200,
        [...models.values()].map((m) => ({
          name: m.metadata.name,
          version: m.metadata.version,
          state: m.state === "ready" ? "READY" : "UNAVAILABLE",
          reason: m.state === "ready" ? "" : (m.failureReason ?? m.state),
        })),
      );
    }
    // Traffic figures (Prometheus, status, Triton's statistics) are behind the metrics token; metadata is not.
    const traffic =
      path === "/metrics" || path === "/agent/status" || (path.startsWith("/v2/models/") && path.endsWith("/stats"));
    if (traffic && statusToken && !tokenMatches(request.headers.authorization, statusToken)) {
      return error(response, 401, `${path} needs a bearer token (Authorization: Bearer …)`, {
        "www-authenticate": "Bearer",
      });
    }
    if (method === "GET" && path === "/metrics") {
      metrics.queueDepth.reset(); // a version replaced since the last scrape leaves no stale series
      for (const m of models.values())
        metrics.queueDepth.set({ model: m.metadata.name, version: m.metadata.version }, m.dispatcher.queueDepthRows);
      const text = await metrics.registry.metrics();
      response.writeHead(200, { "content-type": metrics.registry.contentType });
      response.end(text);
      return;
    }
    if (method === "GET" && path === "/agent/status") return send(response, 200, options.status());

    if (method === "GET" && path === "/v2/models/stats") {
      return send(response, 200, {
        model_stats: [...models.values()].flatMap((m) =>
          tritonModelStats(m.metadata.name, m.statistics, versionsWithStats(m)),
        ),
      });
    }
    const match = /^\/v2\/models\/([^/]+)(?:\/versions\/([^/]+))?(\/ready|\/infer|\/config|\/stats)?$/.exec(path);
    if (match) {
      let name: string;
      try {
        name = decodeURIComponent(match[1]!);
      } catch {
        return error(response, 400, "the model name in the path is not valid percent-encoded UTF-8");
      }
      const model = models.get(name);
      if (!model)
        return error(
          response,
          404,
          `unknown model "${name}"; this agent serves ${[...models.keys()].join(", ") || "no models"}`,
        );
      if (match[3] === "/stats") {
        if (method !== "GET") return error(response, 405, `${method} is not allowed here`, { allow: "GET" });
        const versions = match[2] === undefined ? versionsWithStats(model) : [match[2]];
        if (
          match[2] !== undefined &&
          match[2] !== model.metadata.version &&
          !model.statistics.byVersion.has(match[2])
        ) {
          return error(
            response,
            404,
            `model ${name} has no version "${match[2]}" here (serving ${model.metadata.version})`,
          );
        }
        return send(response, 200, { model_stats: tritonModelStats(name, model.statistics, versions) });
      }
      if (match[2] !== undefined && match[2] !== model.metadata.version)
        return error(
          response,
          404,
          `model ${name} has no version "${match[2]}" here (serving ${model.metadata.version})`,
        );
      if (match[3] === "/infer") {
        if (method !== "POST") return error(response, 405, "infer takes POST", { allow: "POST" });
        // Counted until answered: a request alone lets the instance's answer be waited for synchronously.
        return inferencesInFlight.around(() => infer(request, response, model));
      }
      if (method !== "GET") return error(response, 405, `${method} is not allowed here`, { allow: "GET" });
      if (match[3] === "/ready") {
        const ready = options.accepting() && model.state === "ready";
        return send(response, ready ? 200 : 503, { name, ready });
      }
      if (match[3] === "/config") return send(response, 200, tritonModelConfig(model));
      return send(response, 200, metadataOf(model));
    }
    return error(response, 404, `no route for ${method} ${path}`);
  }

  const server = createServer((request, response) => {
    route(request, response).catch((caught: Error) => {
      if (!response.headersSent) error(response, 500, `internal error: ${caught.message}`);
      else response.destroy();
    });
  });
  // Malformed HTTP (bad framing, oversized headers, an upload cut off) gets the API's JSON error too, instead of
  // Node's bare status line. Only when nothing was written on the connection yet; otherwise just close it.
  const answered = new WeakSet<Socket>();
  server.on("clientError", (caught: NodeJS.ErrnoException, socket: Socket) => {
    // The parser reports the error again for each later chunk; the answer is already on its way.
    if (answered.has(socket)) return;
    if (caught.code === "ECONNRESET" || !socket.writable || socket.bytesWritten > 0) {
      socket.destroy();
      return;
    }
    answered.add(socket);
    const status = caught.code === "HPE_HEADER_OVERFLOW" ? 431 : caught.code === "ERR_HTTP_REQUEST_TIMEOUT" ? 408 : 400;
    // end(), not destroy(), then a lingering close (as in refuseBody): a reset could destroy the answer.
    socket.end(rawErrorResponse(status, `malformed HTTP request: ${caught.message}`));
    socket.setTimeout(LINGER_MS, () => socket.destroy());
  });
  return server;
}
