// The Open Inference Protocol over gRPC (KServe v2 GRPCInferenceService, src/contracts/grpc-predict-v2.proto): health,
// metadata and ModelInfer, on the same models, dispatchers, token, limits and accounting as the HTTP server. The
// serving process never listens: the supervisor owns the gRPC port too and hands each connection over, and a
// connection injector puts it into this grpc-js server (so connections wait, held, across restarts).
import * as grpc from "@grpc/grpc-js";
import { loadOipProto } from "@packrat/contracts/oip-grpc";
import { tokenMatches } from "./bearer-token";
import { DispatchError, type InferResult } from "./dispatcher";
import { inferencesInFlight } from "./in-flight";
import { accountRequest } from "./inference-accounting";
import type { AgentMetrics } from "./metrics";
import { decodeInferRequest, OipError, type BinaryInputs, type ParsedInferRequest } from "./oip-codec";
import type { ModelMetadata, ServedModel } from "./served-model";
import type { OipDatatype } from "./tensor-types";
import type { SpanExporter } from "./span-export";
import { parseTraceparent, requestSpan, traceResponse } from "./trace-context";
import { serverTiming } from "./server-timing";

/** The GRPCInferenceService definition, loaded from the .proto (the same file a client may load). */
export function inferenceServiceDefinition(): grpc.ServiceDefinition {
  const loaded = grpc.loadPackageDefinition(loadOipProto());
  const service = (loaded.inference as grpc.GrpcObject).GRPCInferenceService as grpc.ServiceClientConstructor;
  return service.service;
}

/** The gRPC status each of the agent's HTTP statuses stands for (and back, for the request metrics). */
const CODE_OF_STATUS: Record<number, grpc.status> = {
  400: grpc.status.INVALID_ARGUMENT,
  401: grpc.status.UNAUTHENTICATED,
  404: grpc.status.NOT_FOUND,
  413: grpc.status.RESOURCE_EXHAUSTED,
  415: grpc.status.INVALID_ARGUMENT,
  429: grpc.status.RESOURCE_EXHAUSTED,
  503: grpc.status.UNAVAILABLE,
  500: grpc.status.INTERNAL,
};

interface InferParameter {
  parameter_choice?: "bool_param" | "int64_param" | "string_param";
  bool_param?: boolean;
  int64_param?: number;
  string_param?: string;
}
interface TensorContents {
  [field: string]: unknown[] | undefined;
}
interface InferInput {
  name: string;
  datatype: string;
  shape: number[];
  parameters: Record<string, InferParameter>;
  contents: TensorContents | null;
}
export interface ModelInferRequest {
  model_name: string;
  model_version: string;
  id: string;
  parameters: Record<string, InferParameter>;
  inputs: InferInput[];
  outputs: Array<{ name: string; parameters: Record<string, InferParameter> }>;
  raw_input_contents: Buffer[];
}

/** The InferTensorContents field that holds each datatype's elements (FP16 has none: raw only). */
const CONTENTS_FIELD: Partial<Record<OipDatatype, string>> = {
  BOOL: "bool_contents",
  INT8: "int_contents",
  INT16: "int_contents",
  INT32: "int_contents",
  INT64: "int64_contents",
  UINT8: "uint_contents",
  UINT16: "uint_contents",
  UINT32: "uint_contents",
  UINT64: "uint64_contents",
  FP32: "fp32_contents",
  FP64: "fp64_contents",
};

function parameterValues(map: Record<string, InferParameter> | undefined): Record<string, unknown> | undefined {
  const entries = Object.entries(map ?? {});
  if (entries.length === 0) return undefined;
  return Object.fromEntries(entries.map(([key, p]) => [key, p.parameter_choice ? p[p.parameter_choice] : undefined]));
}

/** raw_input_contents: when used, one entry per input, in the order of `inputs`, each exactly the tensor's bytes. */
function rawInputs(raw: Buffer[], inputs: number): BinaryInputs {
  if (raw.length > 0 && raw.length !== inputs)
    throw new OipError(
      400,
      `raw_input_contents has ${raw.length} entries for ${inputs} inputs: give one per input, in the order of inputs`,
    );
  return {
    dataFields: "contents nor raw_input_contents",
    take(input, index, bytes, described) {
      const part = raw[index];
      if (part === undefined) return undefined;
      if (part.length !== bytes)
        throw new OipError(
          400,
          `input ${input.name}: raw_input_contents[${index}] has ${part.length} bytes, ${described} needs ${bytes}`,
        );
      return part;
    },
    finish() {},
  };
}

/** The gRPC request in the JSON form's terms, so both protocols are validated and decoded by the same code. */
export function decodeGrpcInferRequest(request: ModelInferRequest, metadata: ModelMetadata): ParsedInferRequest {
  const usesRaw = request.raw_input_contents.length > 0;
  const inputs = request.inputs.map((input) => {
    const field = CONTENTS_FIELD[input.datatype as OipDatatype];
    const values = field ? input.contents?.[field] : undefined;
    const hasContents = Object.values(input.contents ?? {}).some((v) => Array.isArray(v) && v.length > 0);
    if (usesRaw && hasContents)
      throw new OipError(400, `input ${input.name}: contents and raw_input_contents are both set; use one`);
    return {
      name: input.name,
      datatype: input.datatype,
      shape: input.shape,
      parameters: parameterValues(input.parameters),
      ...(!usesRaw && hasContents ? { data: values && values.length > 0 ? values : [] } : {}),
    };
  });
  return decodeInferRequest(
    {
      ...(request.id ? { id: request.id } : {}),
      parameters: parameterValues(request.parameters),
      inputs,
      ...(request.outputs.length ? { outputs: request.outputs.map((o) => ({ name: o.name })) } : {}),
    },
    rawInputs(request.raw_input_contents, request.inputs.length),
    metadata,
  );
}

export interface OipGrpcOptions {
  models: () => Map<string, ServedModel>;
  metrics: AgentMetrics;
  /** Largest message accepted (AGENT_MAX_BODY_BYTES): larger ones get RESOURCE_EXHAUSTED before they are decoded. */
  maxMessageBytes: number;
  inferToken?: string;
  faultInjection: boolean;
  accepting: () => boolean;
  version: string;
  /** When set, every inference call's span is exported through it. */
  spans?: SpanExporter;
}

type Callback = grpc.sendUnaryData<unknown>;

function fail(
  callback: Callback,
  status: number,
  message: string,
  retryAfterS?: number,
  metadata = new grpc.Metadata(),
): void {
  if (retryAfterS) metadata.set("retry-after", String(retryAfterS));
  callback({ code: CODE_OF_STATUS[status] ?? grpc.status.UNKNOWN, details: message, metadata });
}

export function createOipGrpcServer(options: OipGrpcOptions): grpc.Server {
  const { metrics } = options;
  const server = new grpc.Server({
    "grpc.max_receive_message_length": options.maxMessageBytes,
    "grpc.max_send_message_length": -1,
  });

  const modelFor = (name: string, version: string, callback: Callback): ServedModel | undefined => {
    const models = options.models();
    const model = models.get(name);
    if (!model) {
      fail(callback, 404, `unknown model "${name}"; this agent serves ${[...models.keys()].join(", ") || "no models"}`);
      return undefined;
    }
    if (version && version !== model.metadata.version) {
      fail(callback, 404, `model ${name} has no version "${version}" here (serving ${model.metadata.version})`);
      return undefined;
    }
    return model;
  };

  async function modelInfer(call: grpc.ServerUnaryCall<ModelInferRequest, unknown>, callback: Callback): Promise<void> {
    const startedAt = performance.now();
    const request = call.request;
    const model = modelFor(request.model_name, request.model_version, callback);
    if (!model) return;
    // Alone: the instance's thread wakes while the request is decoded, not after.
    if (inferencesInFlight.alone && model.state === "ready") model.headsUp();
    const name = model.metadata.name;
    let rows = 0;
    const traceparent = call.metadata.get("traceparent");
    const trace = parseTraceparent(traceparent.length === 1 ? String(traceparent[0]) : undefined);
    // Ids are drawn only when someone will see them: a traced caller, or span export.
    const span = trace || options.spans ? requestSpan(trace) : undefined;
    const finish = (
      status: number,
      version = model.metadata.version,
      phases?: Parameters<typeof accountRequest>[2]["phases"],
    ) =>
      accountRequest(
        metrics,
        model,
        { protocol: "grpc", status, rows, version, startedAt, phases, span },
        options.spans,
      );
    // Trailers of every answer; a traced caller (W3C traceparent metadata) gets the agent's span in its trace.
    const trailer = () => {
      const metadata = new grpc.Metadata();
      if (trace && span) metadata.set("traceresponse", traceResponse(trace, span.spanId));
      return metadata;
    };
    const authorization = call.metadata.get("authorization")[0];
    if (
      options.inferToken &&
      !tokenMatches(typeof authorization === "string" ? authorization : undefined, options.inferToken)
    ) {
      finish(401);
      return fail(
        callback,
        401,
        "inference needs a bearer token (metadata authorization: Bearer …)",
        undefined,
        trailer(),
      );
    }
    if (!options.accepting() || model.state !== "ready") {
      finish(503);
      return fail(
        callback,
        503,
        model.state === "failed" ? `model ${name} failed: ${model.failureReason}` : `model ${name} is not ready`,
        1,
        trailer(),
      );
    }
    try {
      const parseStart = performance.now();
      const parsed = decodeGrpcInferRequest(request, model.metadata);
      const deserializeMs = performance.now() - parseStart;
      rows = parsed.rows;
      // The call's own deadline is a deadline for the admission screen, as parameters.deadline_ms is.
      const deadline = call.getDeadline();
      const deadlineAt = deadline instanceof Date ? deadline.getTime() : deadline;
      const callMs = Number.isFinite(deadlineAt)
        ? Math.max(1, deadlineAt - Date.now() + (performance.now() - startedAt))
        : undefined;
      const deadlineMs =
        parsed.deadlineMs !== undefined && callMs !== undefined
          ? Math.min(parsed.deadlineMs, callMs)
          : (parsed.deadlineMs ?? callMs);
      const result: InferResult = await model.dispatcher.infer(parsed.inputs, {
        deadlineMs,
        elapsedMs: performance.now() - startedAt,
        fault: options.faultInjection ? parsed.fault : undefined,
      });
      const encodeStart = performance.now();
      const version = result.version ?? model.metadata.version;
      const chosen = parsed.outputs
        ? parsed.outputs.map((n) => result.outputs.find((o) => o.name === n)!)
        : result.outputs;
      const response = {
        model_name: name,
        model_version: version,
        id: parsed.id ?? "",
        outputs: chosen.map((t) => ({ name: t.name, datatype: t.datatype, shape: t.shape })),
        raw_output_contents: chosen.map((t) => Buffer.from(t.buffer)),
      };
      const serializeMs = performance.now() - encodeStart;
      const trailers = trailer();
      const t = result.timing;
      trailers.set("server-timing", serverTiming(t));
      callback(null, response, trailers);
      finish(200, version, { deserializeMs, timing: t, serializeMs, resultAt: encodeStart });
    } catch (caught) {
      if (caught instanceof OipError) {
        finish(caught.status);
        return fail(callback, caught.status, caught.message, undefined, trailer());
      }
      if (caught instanceof DispatchError) {
        finish(caught.status);
        return fail(callback, caught.status, caught.message, caught.retryAfterS, trailer());
      }
      finish(500);
      return fail(callback, 500, `internal error: ${(caught as Error).message}`, undefined, trailer());
    }
  }

  const metadataOf = (model: ServedModel) => {
    const m = model.metadata;
    const tensor = ({ name, datatype, shape }: { name: string; datatype: string; shape: number[] }) => ({
      name,
      datatype,
      shape,
    });
    return {
      name: m.name,
      versions: [m.version],
      platform: "onnx_onnxv1",
      inputs: m.inputs.map(tensor),
      outputs: m.outputs.map(tensor),
    };
  };

  server.addService(inferenceServiceDefinition(), {
    ServerLive: (_call: unknown, callback: Callback) => callback(null, { live: true }),
    ServerReady: (_call: unknown, callback: Callback) => {
      const models = options.models();
      callback(null, {
        ready: options.accepting() && models.size > 0 && [...models.values()].every((m) => m.state === "ready"),
      });
    },
    ModelReady: (call: grpc.ServerUnaryCall<{ name: string; version: string }, unknown>, callback: Callback) => {
      const model = modelFor(call.request.name, call.request.version, callback);
      if (model) callback(null, { ready: options.accepting() && model.state === "ready" });
    },
    // No extension of the protocol is served over gRPC (Triton's statistics and configuration are HTTP here).
    ServerMetadata: (_call: unknown, callback: Callback) =>
      callback(null, { name: "packrat-agent", version: options.version, extensions: [] }),
    ModelMetadata: (call: grpc.ServerUnaryCall<{ name: string; version: string }, unknown>, callback: Callback) => {
      const model = modelFor(call.request.name, call.request.version, callback);
      if (model) callback(null, metadataOf(model));
    },
    ModelInfer: (call: grpc.ServerUnaryCall<ModelInferRequest, unknown>, callback: Callback) => {
      inferencesInFlight
        .around(() => modelInfer(call, callback))
        .catch((caught: Error) => fail(callback, 500, `internal error: ${caught.message}`));
    },
  });
  return server;
}
