// An Open Inference Protocol v2 client for load: keep-alive sockets, one deadline per request, every failure an
// outcome (never an exception), the Server-Timing header read, and 200 bodies checked to be inference responses.
import http from "node:http";
import { checkInferResponse, type EncodedRequest } from "./oip-body";
import { modelMetadataSchema, type ModelMetadata } from "./oip-inputs";
import { classifyTransportError, type SendOutcome } from "./outcome";
import { parseServerTiming } from "./server-timing";

export interface OipClientOptions {
  url: URL;
  model: string;
  version?: string;
  /** Per-request deadline; a request still unanswered then is a "timed_out" transport error. */
  timeoutMs: number;
  /** Bearer token for agents that require one (AGENT_INFER_TOKEN). */
  token?: string;
  /** At most this many sockets (the in-flight cap or the concurrency). */
  maxSockets: number;
  /** Check that 200 bodies are inference responses (default true). */
  validate?: boolean;
}

export class TargetError extends Error {
  override readonly name = "TargetError";
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

const MAX_ERROR_BODY = 512;

export class OipClient {
  private readonly agent: http.Agent;
  private readonly host: string;
  private readonly port: number;
  private readonly base: string;
  readonly inferPath: string;

  constructor(private readonly options: OipClientOptions) {
    this.agent = new http.Agent({
      keepAlive: true,
      maxSockets: options.maxSockets,
      maxFreeSockets: options.maxSockets,
    });
    this.host = options.url.hostname.replace(/^\[(.*)\]$/, "$1");
    this.port = Number(options.url.port || 80);
    this.base = options.url.pathname.replace(/\/+$/, "");
    const version = options.version === undefined ? "" : `/versions/${encodeURIComponent(options.version)}`;
    this.inferPath = `${this.base}/v2/models/${encodeURIComponent(options.model)}${version}/infer`;
  }

  private authorization(): Record<string, string> {
    return this.options.token ? { authorization: `Bearer ${this.options.token}` } : {};
  }

  /** GET /v2/models/{name}: the inputs and outputs the load is generated from. */
  async modelMetadata(): Promise<ModelMetadata> {
    const path = `${this.base}/v2/models/${encodeURIComponent(this.options.model)}`;
    const { status, body } = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      const request = http.request(
        { agent: this.agent, host: this.host, port: this.port, path, method: "GET", headers: this.authorization() },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (c: Buffer) => chunks.push(c));
          response.on("end", () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) }));
          response.on("error", reject);
        },
      );
      request.setTimeout(this.options.timeoutMs, () =>
        request.destroy(
          new TargetError(undefined, `no answer from ${this.options.url.origin} within ${this.options.timeoutMs} ms`),
        ),
      );
      request.on("error", (error) =>
        reject(
          error instanceof TargetError
            ? error
            : new TargetError(undefined, `cannot reach ${this.options.url.origin}: ${error.message}`),
        ),
      );
      request.end();
    });
    if (status !== 200)
      throw new TargetError(
        status,
        `GET ${path} answered ${status}: ${body.toString("utf8").slice(0, MAX_ERROR_BODY)}`,
      );
    let json: unknown;
    try {
      json = JSON.parse(body.toString("utf8"));
    } catch {
      throw new TargetError(status, `GET ${path} did not answer JSON`);
    }
    const parsed = modelMetadataSchema.safeParse(json);
    if (!parsed.success)
      throw new TargetError(status, `GET ${path} is not OIP model metadata: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /** POSTs one inference request; resolves with its outcome, whatever happens. */
  send(request: EncodedRequest): Promise<SendOutcome> {
    return new Promise<SendOutcome>((resolve) => {
      let settled = false;
      let timedOut = false;
      const finish = (outcome: SendOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve(outcome);
      };
      const fail = (error: unknown) =>
        finish({
          kind: "transport_error",
          transport: classifyTransportError(error, timedOut),
          detail: timedOut
            ? `no response within ${this.options.timeoutMs} ms`
            : ((error as Error)?.message ?? String(error)),
        });
      const req = http.request({
        agent: this.agent,
        host: this.host,
        port: this.port,
        path: this.inferPath,
        method: "POST",
        headers: {
          "content-type": "application/octet-stream",
          ...request.headers,
          "content-length": request.body.length,
          ...this.authorization(),
        },
      });
      const deadline = setTimeout(() => {
        timedOut = true;
        req.destroy();
        fail(undefined);
      }, this.options.timeoutMs);
      req.on("socket", (socket) => socket.setNoDelay(true));
      req.on("error", fail);
      req.on("response", (response) => {
        const headersAtMs = performance.now();
        const status = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let bytes = 0;
        response.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          chunks.push(chunk);
        });
        response.on("error", fail);
        response.on("aborted", () => fail(Object.assign(new Error("response aborted"), { code: "ECONNRESET" })));
        response.on("end", () => {
          const serverTiming = parseServerTiming(response.headers["server-timing"]);
          const body = Buffer.concat(chunks);
          if (status !== 200) {
            finish({
              kind: "http_error",
              status,
              detail: `${status}: ${body.toString("utf8").slice(0, MAX_ERROR_BODY)}`,
              headersAtMs,
              responseBytes: bytes,
              serverTiming,
            });
            return;
          }
          const problem =
            this.options.validate === false
              ? undefined
              : checkInferResponse(body, response.headers["inference-header-content-length"] as string | undefined);
          finish(
            problem
              ? { kind: "bad_response", status, detail: problem, headersAtMs, responseBytes: bytes, serverTiming }
              : { kind: "ok", status, serverTiming, headersAtMs, responseBytes: bytes },
          );
        });
      });
      req.end(request.body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}
