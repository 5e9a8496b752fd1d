// Import by URL: the control plane downloads a model a user names by URL and registers it exactly as an upload
// (uploadModel: streamed into the store, size-limited, validated in a watched child, analysed, nothing kept on
// refusal). The request goes through the one outbound guard, so a URL cannot reach loopback, private or metadata
// addresses unless PACKRAT_OUTBOUND_ALLOW names them. Redirects are refused rather than followed: the guard checks
// the address it connects to, and a redirect would be a second, unchecked request. Every refusal is a 400 that
// says what was wrong (scheme, address, the remote's status, size, time, not ONNX).
import type { PrismaClient } from "@/generated/prisma/client";
import { ModelRejectedError } from "@/lib/onnx/validate-model";
import type { ArtifactStore } from "@/server/artifacts/artifact-store";
import { artifactStore } from "@/server/artifacts/default-store";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { invalidInput } from "@/server/errors/domain-errors";
import { OutboundRefusedError, OutboundRequestError, type OutboundGuard } from "@/server/net/outbound-guard";
import { outboundGuard } from "@/server/net/outbound";
import { checkUploadRequest, uploadModel, type UploadLimits, type UploadResult } from "./models-upload-service";
import type { ServiceCaller } from "./users-service";

export interface ImportLimits extends UploadLimits {
  /** The whole download's limit (headers and body), in ms. */
  downloadTimeoutMs: number;
  /** Plain http:// allowed (an admin's choice: MODEL_IMPORT_ALLOW_HTTP). */
  allowHttp: boolean;
}

export interface ModelImport {
  url: string;
  name: string;
  description?: string;
  dims?: Record<string, number>;
  batchAxes?: Record<string, number | null>;
}

export interface ImportResult extends UploadResult {
  /** Where the bytes came from, without credentials or query (which may hold a token). */
  source: string;
}

/** The URL as it may be shown and audited: no user:password, no query, no fragment. */
export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

function parseUrl(text: string, allowHttp: boolean): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidInput(`"${text.slice(0, 200)}" is not a URL (e.g. https://example.com/model.onnx)`, { field: "url" });
  }
  if (url.protocol === "https:") return url;
  if (url.protocol === "http:") {
    if (allowHttp) return url;
    throw invalidInput(
      "plain http:// imports are off (anyone on the path could swap the model): use https://, or an admin sets MODEL_IMPORT_ALLOW_HTTP=true",
      { field: "url" },
    );
  }
  throw invalidInput(`only https:// URLs can be imported (got ${url.protocol})`, { field: "url" });
}

const refusal = (error: ModelRejectedError) => invalidInput(error.message, { field: "file", code: error.code });

export function importLimits(): ImportLimits {
  const e = env();
  return {
    maxBytes: e.MODEL_UPLOAD_MAX_BYTES,
    archiveMaxBytes: e.MODEL_ARCHIVE_MAX_BYTES,
    validateTimeoutMs: e.MODEL_VALIDATE_TIMEOUT_MS,
    validateMaxRssBytes: e.MODEL_VALIDATE_MAX_RSS,
    downloadTimeoutMs: e.MODEL_IMPORT_TIMEOUT_MS,
    allowHttp: e.MODEL_IMPORT_ALLOW_HTTP,
  };
}

export interface ImportDeps {
  limits?: ImportLimits;
  guard?: OutboundGuard;
  store?: ArtifactStore;
  prisma?: PrismaClient;
}

export async function importModelFromUrl(
  caller: ServiceCaller,
  request: ModelImport,
  deps: ImportDeps = {},
): Promise<ImportResult> {
  const limits = deps.limits ?? importLimits();
  const guard = deps.guard ?? outboundGuard();
  const store = deps.store ?? artifactStore();
  const prisma = deps.prisma ?? db();
  const url = parseUrl(request.url, limits.allowHttp);
  const shown = displayUrl(url);
  // Name, description and dimensions first: a bad request costs no download.
  try {
    checkUploadRequest(request, limits);
  } catch (error) {
    throw error instanceof ModelRejectedError ? refusal(error) : error;
  }

  const signal = AbortSignal.timeout(limits.downloadTimeoutMs);
  const timedOut = () =>
    invalidInput(
      `downloading ${shown} took longer than ${limits.downloadTimeoutMs} ms (MODEL_IMPORT_TIMEOUT_MS); nothing was kept`,
      { field: "url" },
    );
  let response: Response;
  try {
    response = await guard.fetch(url, { headers: { accept: "application/octet-stream, */*" }, signal });
  } catch (error) {
    if (error instanceof OutboundRefusedError) throw invalidInput(error.message, { field: "url" });
    if (signal.aborted) throw timedOut();
    if (error instanceof OutboundRequestError)
      throw invalidInput(`could not download ${shown}: ${error.code} (${error.message})`, { field: "url" });
    throw error;
  }

  const drop = () => response.body?.cancel().catch(() => undefined);
  if (response.status >= 300 && response.status < 400) {
    await drop();
    const location = response.headers.get("location");
    throw invalidInput(
      `${shown} answered HTTP ${response.status}, a redirect${location ? ` to ${location.slice(0, 200)}` : ""}; redirects are not followed: import the final URL`,
      { field: "url" },
    );
  }
  if (response.status !== 200) {
    await drop();
    throw invalidInput(
      `${shown} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}, not the model`,
      { field: "url" },
    );
  }
  // The guard does not decompress: Content-Length is the size of the bytes that will be stored.
  const length = response.headers.get("content-length");
  const encoding = response.headers.get("content-encoding");
  if (encoding && encoding !== "identity") {
    await drop();
    throw invalidInput(`${shown} sent the model ${encoding}-encoded; serve the raw .onnx file`, { field: "url" });
  }
  const declaredBytes = length !== null && /^\d+$/.test(length) ? Number(length) : undefined;
  if (!response.body) throw refusal(new ModelRejectedError("EMPTY", `${shown} sent an empty body`));

  // The time limit is the download's: once the last byte is in, validation runs under its own limit.
  let downloaded = false;
  const source = response.body as unknown as AsyncIterable<Uint8Array>;
  async function* body() {
    yield* source;
    downloaded = true;
  }
  try {
    const result = await uploadModel(
      caller,
      {
        name: request.name,
        description: request.description,
        dims: request.dims,
        batchAxes: request.batchAxes,
        fileName: shown,
        body: body(),
        declaredBytes,
        auditAction: "model.import",
      },
      limits,
      store,
      prisma,
    );
    return { ...result, source: shown };
  } catch (error) {
    await drop();
    if (signal.aborted && !downloaded) throw timedOut();
    if (error instanceof ModelRejectedError) throw refusal(error);
    throw error;
  }
}
