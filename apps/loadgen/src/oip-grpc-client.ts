// The Open Inference Protocol over gRPC for load (KServe v2 GRPCInferenceService, src/contracts/grpc-predict-v2.proto):
// the same contract as OipClient (metadata, send, close; every failure an outcome), with each request's
// ModelInferRequest serialized once, before the clock starts, as HTTP bodies are. One HTTP/2 connection carries
// every request (gRPC multiplexes; there is no socket pool to size).
import * as grpc from "@grpc/grpc-js";
import type { MethodDefinition, ServiceDefinition } from "@grpc/proto-loader";
import { loadOipProto, OIP_GRPC_SERVICE } from "@packrat/contracts/oip-grpc";
import type { EncodedRequest } from "./oip-body";
import { TargetError, type OipClientOptions } from "./oip-client";
import { modelMetadataSchema, type InputTensor, type ModelMetadata } from "./oip-inputs";
import type { SendOutcome } from "./outcome";
import { parseServerTiming } from "./server-timing";

/** The HTTP status a gRPC code stands for, so reports count gRPC answers as they count HTTP ones. */
const STATUS_OF_CODE: Partial<Record<grpc.status, number>> = {
  [grpc.status.INVALID_ARGUMENT]: 400,
  [grpc.status.UNAUTHENTICATED]: 401,
  [grpc.status.PERMISSION_DENIED]: 403,
  [grpc.status.NOT_FOUND]: 404,
  [grpc.status.RESOURCE_EXHAUSTED]: 429,
  [grpc.status.UNAVAILABLE]: 503,
  [grpc.status.UNIMPLEMENTED]: 501,
  [grpc.status.INTERNAL]: 500,
  [grpc.status.UNKNOWN]: 500,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- decoded protobuf messages, read field by field
type Message = Record<string, any>;
const raw = (bytes: Buffer) => bytes;

export class OipGrpcClient {
  private readonly client: grpc.Client;
  private readonly service: ServiceDefinition;

  constructor(private readonly options: Omit<OipClientOptions, "maxSockets">) {
    this.service = loadOipProto()[OIP_GRPC_SERVICE] as ServiceDefinition;
    const host =
      options.url.hostname.includes(":") && !options.url.hostname.startsWith("[")
        ? `[${options.url.hostname}]`
        : options.url.hostname;
    this.client = new grpc.Client(`${host}:${options.url.port || 8001}`, grpc.credentials.createInsecure(), {
      "grpc.max_receive_message_length": -1,
      "grpc.max_send_message_length": -1,
    });
  }

  private method(name: string): MethodDefinition<Message, Message> {
    return this.service[name] as MethodDefinition<Message, Message>;
  }

  private metadata(): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (this.options.token) metadata.set("authorization", `Bearer ${this.options.token}`);
    return metadata;
  }

  /** ModelMetadata: the inputs and outputs the load is generated from. */
  async modelMetadata(): Promise<ModelMetadata> {
    const method = this.method("ModelMetadata");
    const response = await new Promise<Message>((resolve, reject) => {
      this.client.makeUnaryRequest(
        method.path,
        method.requestSerialize,
        method.responseDeserialize,
        { name: this.options.model, version: this.options.version ?? "" },
        this.metadata(),
        { deadline: Date.now() + this.options.timeoutMs },
        (error, value) => {
          if (error)
            reject(
              new TargetError(
                STATUS_OF_CODE[error.code as grpc.status],
                `ModelMetadata on ${this.options.url.host} failed: ${grpc.status[error.code]}: ${error.details}`,
              ),
            );
          else resolve(value!);
        },
      );
    });
    const parsed = modelMetadataSchema.safeParse(response);
    if (!parsed.success)
      throw new TargetError(undefined, `ModelMetadata is not OIP model metadata: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  }

  /** A ModelInferRequest with every input in raw_input_contents, serialized (the body `send` takes). */
  encode(inputs: readonly InputTensor[], id?: string): EncodedRequest {
    const body = this.method("ModelInfer").requestSerialize({
      model_name: this.options.model,
      model_version: this.options.version ?? "",
      ...(id === undefined ? {} : { id }),
      inputs: inputs.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
      raw_input_contents: inputs.map((t) => Buffer.from(t.bytes.buffer, t.bytes.byteOffset, t.bytes.byteLength)),
    });
    return { body, headers: {} };
  }

  /** Sends one serialized ModelInferRequest; resolves with its outcome, whatever happens. */
  send(request: EncodedRequest): Promise<SendOutcome> {
    const method = this.method("ModelInfer");
    return new Promise<SendOutcome>((resolve) => {
      let headersAtMs: number | undefined;
      let answer: { error: grpc.ServiceError | null; body?: Buffer } | undefined;
      const call = this.client.makeUnaryRequest(
        method.path,
        raw,
        raw,
        request.body,
        this.metadata(),
        { deadline: Date.now() + this.options.timeoutMs },
        (error, body) => {
          answer = { error, body };
        },
      );
      call.on("metadata", () => {
        headersAtMs = performance.now();
      });
      // The status (with its trailers) comes after the callback: the outcome is settled here.
      call.on("status", (status: grpc.StatusObject) => {
        const serverTiming = parseServerTiming(status.metadata.get("server-timing").map(String));
        const error = answer?.error;
        if (error || !answer?.body) {
          const code = error?.code ?? status.code;
          const detail = `${grpc.status[code]}: ${error?.details ?? status.details}`;
          if (code === grpc.status.DEADLINE_EXCEEDED) {
            resolve({ kind: "transport_error", transport: "timed_out", detail });
            return;
          }
          // No answer from the server at all (refused, connection dropped) is a transport error, as over HTTP.
          if (
            code === grpc.status.UNAVAILABLE &&
            headersAtMs === undefined &&
            !status.metadata.get("retry-after").length
          ) {
            resolve({
              kind: "transport_error",
              transport: /refused|ECONNREFUSED|No connection established/i.test(detail)
                ? "refused"
                : /reset|dropped|closed/i.test(detail)
                  ? "reset"
                  : "other",
              detail,
            });
            return;
          }
          resolve({ kind: "http_error", status: STATUS_OF_CODE[code] ?? 500, detail, headersAtMs, serverTiming });
          return;
        }
        const body = answer.body;
        let problem: string | undefined;
        if (this.options.validate !== false) {
          try {
            const response = method.responseDeserialize(body);
            const outputs = (response.outputs ?? []) as unknown[];
            if (outputs.length === 0) problem = "the response has no outputs";
            else if (
              response.raw_output_contents.length !== 0 &&
              response.raw_output_contents.length !== outputs.length
            )
              problem = `${outputs.length} outputs, ${response.raw_output_contents.length} raw_output_contents`;
          } catch (caught) {
            problem = `the response is not a ModelInferResponse: ${(caught as Error).message}`;
          }
        }
        resolve(
          problem
            ? {
                kind: "bad_response",
                status: 200,
                detail: problem,
                headersAtMs,
                responseBytes: body.length,
                serverTiming,
              }
            : { kind: "ok", status: 200, serverTiming, headersAtMs, responseBytes: body.length },
        );
      });
    });
  }

  close(): void {
    this.client.close();
  }
}
