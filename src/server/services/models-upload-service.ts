// An upload from the dashboard: the request body streamed into the artifact store (hashed on the fly, cut off past
// the limit, never held in memory), validated in a watched child (ONNX, self-contained, ONNX Runtime loads it),
// analysed in another (the whole file is decoded there, never in the server), then registered as the next version
// of the named model. Any rejection discards the staged file and writes no row: nothing of a refused upload stays
// behind, and the error says why. At most MODEL_UPLOAD_MAX_CONCURRENT run at once per replica (uploadSlot).
import { storageFailure } from "@/server/artifacts/storage-failure";
import type { Readable } from "node:stream";
import type { PrismaClient } from "@/generated/prisma/client";
import type { ModelAnalysis } from "@/lib/onnx/analyze-model";
import { analyzeOnnxFileInSandbox } from "@/lib/onnx/analyze-in-sandbox";
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { servingAxes } from "@/core/model-analysis/serving-axes";
import { OnnxFileError } from "@/lib/onnx/decode-model";
import { ModelRejectedError, validateOnnxFile } from "@/lib/onnx/validate-model";
import { modelNameProblem } from "@/lib/models/model-name";
import { userActor } from "@/server/audit/record-audit";
import { ArtifactTooLargeError, type ArtifactStore, type StagedArtifact } from "@/server/artifacts/artifact-store";
import { db } from "@/server/db/client";
import { env } from "@/server/env";
import { invalidInput } from "@/server/errors/domain-errors";
import { servingDimsOf, toStoredAnalysis } from "./models-analysis";
import { registerModelVersion, type NewVersionResult } from "./models-register-version";
import { withUploadSlot } from "./upload-slots";
import type { ServiceCaller } from "./users-service";

export interface UploadLimits {
  maxBytes: number;
  validateTimeoutMs: number;
  validateMaxRssBytes: number;
  /** Uploads this process handles at once (default MODEL_UPLOAD_MAX_CONCURRENT); one more is RATE_LIMITED. */
  maxConcurrent?: number;
}

export interface ModelUpload {
  name: string;
  description?: string;
  /** The file's name on the user's machine (recorded in the audit event only). */
  fileName?: string;
  /** Values for dynamic dimensions other than the batch, e.g. {sequence: 128}. */
  dims?: Record<string, number>;
  /** Batch-axis overrides by tensor name (null: the tensor has no batch axis). */
  batchAxes?: Record<string, number | null>;
  body: AsyncIterable<Uint8Array> | Readable;
  /** The request's Content-Length, when it sent one. */
  declaredBytes?: number;
  /** The audit event's action: "model.upload" unless the bytes came another way (an import by URL). */
  auditAction?: "model.upload" | "model.import";
}

export interface UploadResult extends NewVersionResult {
  sha256: string;
  bytes: number;
  flops: "counted" | "unavailable";
}

const mib = (bytes: number) => (bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`);

function tooLarge(limit: number): ModelRejectedError {
  return new ModelRejectedError("TOO_LARGE", `the file is larger than the upload limit of ${mib(limit)} (MODEL_UPLOAD_MAX_BYTES)`);
}

/** Checks what can be checked before a byte is read, so a bad request costs nothing. */
export function checkUploadRequest(upload: Pick<ModelUpload, "name" | "description" | "dims" | "declaredBytes">, limits: UploadLimits): void {
  const problem = modelNameProblem(upload.name);
  if (problem) throw invalidInput(problem, { field: "name" });
  if ((upload.description ?? "").length > 2000) throw invalidInput("the description is longer than 2000 characters", { field: "description" });
  for (const [key, value] of Object.entries(upload.dims ?? {})) {
    if (!Number.isSafeInteger(value) || value < 1) throw invalidInput(`dimension ${key} must be a positive integer, got ${value}`, { field: "dims" });
  }
  if (upload.declaredBytes !== undefined && upload.declaredBytes > limits.maxBytes) throw tooLarge(limits.maxBytes);
  if (upload.declaredBytes === 0) throw new ModelRejectedError("EMPTY", "the file is empty");
}

async function stageBody(upload: ModelUpload, limits: UploadLimits, store: ArtifactStore): Promise<StagedArtifact> {
  let received = 0;
  async function* counted(source: AsyncIterable<Uint8Array>) {
    for await (const chunk of source) { received += chunk.length; yield chunk; }
  }
  let staged: StagedArtifact;
  try {
    staged = await store.stage(counted(upload.body as AsyncIterable<Uint8Array>), limits.maxBytes);
  } catch (error) {
    if (error instanceof ArtifactTooLargeError) throw tooLarge(limits.maxBytes);
    if (storageFailure(error)) throw error; // the store's disk, not the client's upload
    throw new ModelRejectedError("TRUNCATED", `the upload was interrupted after ${received} bytes (${(error as Error).message}); nothing was kept`);
  }
  if (upload.declaredBytes !== undefined && staged.bytes !== upload.declaredBytes) {
    await store.discard(staged);
    throw new ModelRejectedError("TRUNCATED", `the upload ended after ${staged.bytes} of ${upload.declaredBytes} bytes; nothing was kept`);
  }
  if (staged.bytes === 0) {
    await store.discard(staged);
    throw new ModelRejectedError("EMPTY", "the file is empty");
  }
  return staged;
}

/**
 * The values the model needs before it can run, asked for now rather than discovered at deploy: every dimension to
 * fix besides the batch has a value (the caller's or the file's default), and the caller names no other.
 */
function checkServingDims(analysis: ModelAnalysis, upload: Pick<ModelUpload, "dims">): void {
  const summary = analysis.summary;
  const axes = servingAxes(summary.inputs, summary.outputs, {});
  const toFix = summary.dynamicDims.toFix ?? axes.mustFix;
  const keys = new Set(toFix.map((d) => d.key));
  for (const key of Object.keys(upload.dims ?? {})) {
    if (!keys.has(key)) {
      const wanted = toFix.length ? `it needs ${toFix.map((d) => d.label).join(", ")}` : "it has no dynamic dimension to fix besides the batch";
      throw invalidInput(`the model has no dynamic dimension "${key}" (${wanted})`, { field: "dims" });
    }
  }
  const missing = toFix.filter((d) => analysis.dimValues[d.key] === undefined);
  if (missing.length > 0) {
    throw invalidInput(`give a value for each dynamic dimension besides the batch (dims=${missing.map((d) => `${d.key}=…`).join(",")}): ${missing.map((d) => d.label).join(", ")}`, { field: "dims" });
  }
}

export async function uploadModel(
  caller: ServiceCaller, upload: ModelUpload, limits: UploadLimits, store: ArtifactStore, prisma: PrismaClient = db(),
): Promise<UploadResult> {
  checkUploadRequest(upload, limits);
  // The slot is taken before a byte is read: a refused upload costs the server nothing.
  return withUploadSlot(limits.maxConcurrent ?? env().MODEL_UPLOAD_MAX_CONCURRENT, () => stageAndRegister(caller, upload, limits, store, prisma));
}

async function stageAndRegister(
  caller: ServiceCaller, upload: ModelUpload, limits: UploadLimits, store: ArtifactStore, prisma: PrismaClient,
): Promise<UploadResult> {
  const staged = await stageBody(upload, limits, store);
  try {
    const childLimits = { timeoutMs: limits.validateTimeoutMs, memoryLimitBytes: limits.validateMaxRssBytes };
    const validation = await validateOnnxFile(staged.path, childLimits);
    let analysis;
    try {
      analysis = await analyzeOnnxFileInSandbox(staged.path, { dims: upload.dims, probe: childLimits, batchAxes: upload.batchAxes }, childLimits);
    } catch (error) {
      // Validation has decoded the file already; this is a file the analysis cannot read after all.
      if (error instanceof OnnxFileError) throw new ModelRejectedError("NOT_ONNX", error.message);
      if (error instanceof ModelAnalysisInputError) throw invalidInput(error.message, { field: "batchAxes" });
      throw error;
    }
    checkServingDims(analysis, upload);
    const result = await registerModelVersion({
      actor: userActor(caller.user), createdById: caller.user.id, requestId: caller.requestId,
      name: upload.name, description: upload.description, staged,
      analysis: toStoredAnalysis(analysis, validation, upload.batchAxes), servingDims: servingDimsOf(analysis),
      source: "upload", auditAction: upload.auditAction ?? "model.upload", fileName: upload.fileName,
    }, store, prisma);
    return { ...result, sha256: staged.sha256, bytes: staged.bytes, flops: analysis.flops.status };
  } catch (error) {
    await store.discard(staged);
    throw error;
  }
}
