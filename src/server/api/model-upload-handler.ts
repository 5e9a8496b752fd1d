// POST /api/models/upload?name=…[&description=…][&fileName=…][&dims=sequence:128,…][&batchAxes=h0:1,…], the body the raw .onnx file,
// or a .tar/.zip of one .onnx and its external data files (application/octet-stream). Streamed into the artifact store, never buffered. The same CSRF rule as every other
// change: POST from the dashboard's Origin, with a content type a plain HTML form cannot send; then a session
// whose role passes ml_engineer (admin passes too). A personal API token (Authorization: Bearer prpat_…) stands
// for the session and skips the Origin check; its role must pass the same gate. This route must stay out of any Next proxy/middleware, which
// buffers bodies and cuts them at 10 MB.
import { roleSatisfies } from "@/core/security/roles";
import { getSessionUser } from "@/server/auth/session";
import { artifactStore } from "@/server/artifacts/default-store";
import type { ArtifactStore } from "@/server/artifacts/artifact-store";
import { storageFailure } from "@/server/artifacts/storage-failure";
import { env } from "@/server/env";
import { DomainError } from "@/server/errors/domain-errors";
import { classifyError } from "@/server/errors/error-mapping";
import { log, requestIdFrom } from "@/server/log";
import { ModelRejectedError } from "@/lib/onnx/validate-model";
import { uploadModel, type UploadLimits } from "@/server/services/models-upload-service";
import { authenticateApiToken, bearerApiToken } from "@/server/services/api-tokens-service";

export interface UploadErrorBody {
  error: { code: string; message: string; field?: string };
}

function reply(status: number, body: unknown, requestId: string): Response {
  return Response.json(body, { status, headers: { "x-request-id": requestId, "cache-control": "no-store" } });
}

function refuse(status: number, code: string, message: string, requestId: string, field?: string): Response {
  return reply(status, { error: { code, message, ...(field ? { field } : {}) } } satisfies UploadErrorBody, requestId);
}

/** "h0:1,gain:none" → {h0: 1, gain: null}: batch-axis overrides by tensor; a malformed entry is reported. */
export function parseBatchAxes(text: string | null): Record<string, number | null> | string {
  const out: Record<string, number | null> = {};
  if (!text) return out;
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^:=\s]+)\s*[:=]\s*(\d+|none)$/.exec(part);
    if (!m) return `"${part}" is not TENSOR=AXIS or TENSOR=none (e.g. h0=1)`;
    out[m[1]!] = m[2] === "none" ? null : Number(m[2]);
  }
  return out;
}

/** "sequence:128,width=64" → {sequence: 128, width: 64}; a malformed entry is reported, not dropped. */
export function parseDims(text: string | null): Record<string, number> | string {
  const out: Record<string, number> = {};
  if (!text) return out;
  for (const part of text
    .split(",")
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^:=\s]+)\s*[:=]\s*(\d+)$/.exec(part);
    if (!m) return `"${part}" is not NAME=VALUE (e.g. sequence=128)`;
    out[m[1]!] = Number(m[2]);
  }
  return out;
}

export function uploadLimits(): UploadLimits {
  const e = env();
  return {
    maxBytes: e.MODEL_UPLOAD_MAX_BYTES,
    archiveMaxBytes: e.MODEL_ARCHIVE_MAX_BYTES,
    validateTimeoutMs: e.MODEL_VALIDATE_TIMEOUT_MS,
    validateMaxRssBytes: e.MODEL_VALIDATE_MAX_RSS,
    maxConcurrent: e.MODEL_UPLOAD_MAX_CONCURRENT,
  };
}

const REJECTION_STATUS: Partial<Record<ModelRejectedError["code"], number>> = { TOO_LARGE: 413 };

export async function handleModelUpload(
  request: Request,
  deps: { store?: ArtifactStore; limits?: UploadLimits } = {},
): Promise<Response> {
  const requestId = requestIdFrom(request.headers);
  if (request.method !== "POST")
    return refuse(405, "METHOD_NOT_ALLOWED", `uploads are POST requests (got ${request.method})`, requestId);
  const publicOrigin = new URL(env().PACKRAT_PUBLIC_URL).origin;
  const origin = request.headers.get("origin");
  // A personal API token is not sent by a browser on its own: its caller is exempt from the Origin check.
  const token = bearerApiToken(request.headers);
  if (!token && origin !== publicOrigin) {
    const reason = origin
      ? `the request's Origin ${origin} is not this dashboard's (${publicOrigin})`
      : "the request has no Origin header";
    log.warn("upload refused", { requestId, reason });
    return refuse(403, "FORBIDDEN", reason, requestId);
  }
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/octet-stream") {
    return refuse(
      415,
      "UNSUPPORTED_MEDIA_TYPE",
      `send the file as application/octet-stream (got ${type ?? "no content type"})`,
      requestId,
    );
  }
  const user = token ? await authenticateApiToken(token) : await getSessionUser(request.headers);
  if (!user)
    return refuse(
      401,
      "UNAUTHORIZED",
      token ? "the API token is unknown, revoked or expired" : "Sign in first",
      requestId,
    );
  if (!roleSatisfies(user.role, "ml_engineer"))
    return refuse(403, "FORBIDDEN", "You need the ml_engineer role to upload models", requestId);

  const url = new URL(request.url);
  const dims = parseDims(url.searchParams.get("dims"));
  if (typeof dims === "string") return refuse(400, "INVALID_INPUT", `dims: ${dims}`, requestId, "dims");
  const batchAxes = parseBatchAxes(url.searchParams.get("batchAxes"));
  if (typeof batchAxes === "string")
    return refuse(400, "INVALID_INPUT", `batchAxes: ${batchAxes}`, requestId, "batchAxes");
  const length = request.headers.get("content-length");
  const declaredBytes = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  if (!request.body && declaredBytes !== 0) return refuse(422, "EMPTY", "the file is empty", requestId);

  const started = performance.now();
  const logFields = { requestId, user: user.email, name: url.searchParams.get("name"), declaredBytes };
  try {
    const result = await uploadModel(
      { user, requestId },
      {
        name: url.searchParams.get("name") ?? "",
        description: url.searchParams.get("description") ?? undefined,
        fileName: url.searchParams.get("fileName") ?? undefined,
        dims,
        batchAxes,
        body:
          (request.body as AsyncIterable<Uint8Array> | null) ??
          (async function* () {
            /* no body */
          })(),
        declaredBytes,
      },
      deps.limits ?? uploadLimits(),
      deps.store ?? artifactStore(),
    );
    log.info("model uploaded", {
      ...logFields,
      ms: Math.round(performance.now() - started),
      sha256: result.sha256,
      version: result.version.number,
      deduplicated: result.deduplicated,
    });
    return reply(result.deduplicated ? 200 : 201, result, requestId);
  } catch (error) {
    if (error instanceof ModelRejectedError) {
      log.info("upload rejected", {
        ...logFields,
        code: error.code,
        message: error.message,
        ...(error.diagnostics ? { diagnostics: error.diagnostics } : {}),
      });
      return refuse(REJECTION_STATUS[error.code] ?? 422, error.code, error.message, requestId, "file");
    }
    // A service's DomainError or src/core's refusal of an input, mapped as at every edge (error-mapping.ts).
    const classified = classifyError(error);
    if (classified) {
      const response = refuse(
        classified.httpStatus,
        classified.domainCode,
        classified.message,
        requestId,
        classified.parameter,
      );
      const retryAfter = error instanceof DomainError ? error.details?.retryAfterSeconds : undefined;
      if (typeof retryAfter === "number") response.headers.set("retry-after", String(retryAfter));
      if (classified.domainCode === "RATE_LIMITED") log.warn("upload refused: too many at once", { ...logFields });
      return response;
    }
    const storage = storageFailure(error);
    if (storage) {
      log.error("upload failed: artifact store", {
        ...logFields,
        errno: storage.errno,
        path: (error as { path?: string }).path,
      });
      return refuse(storage.status, storage.code, storage.message, requestId);
    }
    log.error("upload failed", { ...logFields, error });
    return refuse(500, "INTERNAL", "the upload failed on the server; nothing was kept", requestId);
  }
}
