// An upload from the dashboard: the request body streamed into the artifact store (hashed on the fly, cut off past
// the limit, never held in memory), validated in a watched child (ONNX, self-contained, ONNX Runtime loads it),
// analysed in another (the whole file is decoded there, never in the server), then registered as the next version
// of the named model. Any rejection discards the staged file and writes no row: nothing of a refused upload stays
// behind, and the error says why. At most MODEL_UPLOAD_MAX_CONCURRENT run at once per replica (uploadSlot).
// A .tar or .zip (told by its first bytes) is a model with external data: one .onnx and the data files its tensors
// name. It is unpacked beside the staged file (unpack-archive.ts refuses unsafe entries), validated and analysed
// from that directory, and stored as a bundle (src/core/model-bundle): model.onnx and the files it names, one
// artifact. An archive whose model has no external data is stored as that plain .onnx.
import { storageFailure } from "@/server/artifacts/storage-failure";
import { rm, stat } from "node:fs/promises";
import { createReadStream } from "node:fs";
import type { Readable } from "node:stream";
import type { ArtifactFormat } from "@/core/model-bundle/bundle";
import { archiveFormatOf, type ArchiveFormat } from "@/lib/model-bundle/read-archive";
import { bundleBytes } from "@/lib/model-bundle/pack-bundle";
import { unpackModelArchive } from "@/lib/model-bundle/unpack-archive";
import { UNPACK_SUFFIX } from "@/server/artifacts/artifact-staging";
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
  /** A .tar or .zip of a model and its external data: the most it may send, and the most its files may unpack to. */
  archiveMaxBytes: number;
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
  /** "onnx-bundle": stored with its external data files (their paths relative to the model). */
  format: ArtifactFormat;
  dataFiles: string[];
  flops: "counted" | "unavailable";
}

const mib = (bytes: number) =>
  bytes >= 1024 ** 3 ? `${(bytes / 1024 ** 3).toFixed(1)} GiB` : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

function tooLarge(limit: number): ModelRejectedError {
  return new ModelRejectedError(
    "TOO_LARGE",
    `the file is larger than the upload limit of ${mib(limit)} (MODEL_UPLOAD_MAX_BYTES)`,
  );
}

function archiveTooLarge(limit: number): ModelRejectedError {
  return new ModelRejectedError(
    "TOO_LARGE",
    `the archive is larger than the limit of ${mib(limit)} for a model with its data files (MODEL_ARCHIVE_MAX_BYTES)`,
  );
}

/** Checks what can be checked before a byte is read, so a bad request costs nothing. */
export function checkUploadRequest(
  upload: Pick<ModelUpload, "name" | "description" | "dims" | "declaredBytes">,
  limits: UploadLimits,
): void {
  const problem = modelNameProblem(upload.name);
  if (problem) throw invalidInput(problem, { field: "name" });
  if ((upload.description ?? "").length > 2000)
    throw invalidInput("the description is longer than 2000 characters", { field: "description" });
  for (const [key, value] of Object.entries(upload.dims ?? {})) {
    if (!Number.isSafeInteger(value) || value < 1)
      throw invalidInput(`dimension ${key} must be a positive integer, got ${value}`, { field: "dims" });
  }
  const largest = Math.max(limits.maxBytes, limits.archiveMaxBytes);
  if (upload.declaredBytes !== undefined && upload.declaredBytes > largest)
    throw largest === limits.maxBytes ? tooLarge(largest) : archiveTooLarge(largest);
  if (upload.declaredBytes === 0) throw new ModelRejectedError("EMPTY", "the file is empty");
}

type StagedUpload = StagedArtifact & { archive: ArchiveFormat | undefined };

/** The body staged, and what it is: an .onnx, or (by its first 512 bytes) a .tar or .zip, each under its own limit. */
async function stageBody(upload: ModelUpload, limits: UploadLimits, store: ArtifactStore): Promise<StagedUpload> {
  let received = 0;
  let head = new Uint8Array(0);
  let kind: ArchiveFormat | "onnx" | undefined;
  const limitOf = (k: typeof kind) =>
    k === undefined
      ? Math.max(limits.maxBytes, limits.archiveMaxBytes)
      : k === "onnx"
        ? limits.maxBytes
        : limits.archiveMaxBytes;
  async function* counted(source: AsyncIterable<Uint8Array>) {
    for await (const chunk of source) {
      received += chunk.length;
      if (kind === undefined) {
        const next = new Uint8Array(Math.min(512, head.length + chunk.length));
        next.set(head);
        next.set(chunk.subarray(0, next.length - head.length), head.length);
        head = next;
        if (head.length === 512) kind = archiveFormatOf(head) ?? "onnx";
        // Its first bytes say what it is: a Content-Length past that kind's limit is refused now.
        if (kind !== undefined && upload.declaredBytes !== undefined && upload.declaredBytes > limitOf(kind)) {
          throw kind === "onnx" ? tooLarge(limits.maxBytes) : archiveTooLarge(limits.archiveMaxBytes);
        }
      }
      if (received > limitOf(kind))
        throw kind === "onnx" ? tooLarge(limits.maxBytes) : archiveTooLarge(limits.archiveMaxBytes);
      yield chunk;
    }
  }
  let staged: StagedArtifact;
  try {
    staged = await store.stage(counted(upload.body as AsyncIterable<Uint8Array>), limitOf(undefined));
  } catch (error) {
    if (error instanceof ModelRejectedError) throw error;
    if (error instanceof ArtifactTooLargeError)
      throw limits.maxBytes >= limits.archiveMaxBytes
        ? tooLarge(limits.maxBytes)
        : archiveTooLarge(limits.archiveMaxBytes);
    if (storageFailure(error)) throw error; // the store's disk, not the client's upload
    throw new ModelRejectedError(
      "TRUNCATED",
      `the upload was interrupted after ${received} bytes (${(error as Error).message}); nothing was kept`,
    );
  }
  if (upload.declaredBytes !== undefined && staged.bytes !== upload.declaredBytes) {
    await store.discard(staged);
    throw new ModelRejectedError(
      "TRUNCATED",
      `the upload ended after ${staged.bytes} of ${upload.declaredBytes} bytes; nothing was kept`,
    );
  }
  if (staged.bytes === 0) {
    await store.discard(staged);
    throw new ModelRejectedError("EMPTY", "the file is empty");
  }
  kind ??= archiveFormatOf(head) ?? "onnx";
  if (kind === "onnx" && staged.bytes > limits.maxBytes) {
    await store.discard(staged);
    throw tooLarge(limits.maxBytes);
  }
  return { ...staged, archive: kind === "onnx" ? undefined : kind };
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
      const wanted = toFix.length
        ? `it needs ${toFix.map((d) => d.label).join(", ")}`
        : "it has no dynamic dimension to fix besides the batch";
      throw invalidInput(`the model has no dynamic dimension "${key}" (${wanted})`, { field: "dims" });
    }
  }
  const missing = toFix.filter((d) => analysis.dimValues[d.key] === undefined);
  if (missing.length > 0) {
    throw invalidInput(
      `give a value for each dynamic dimension besides the batch (dims=${missing.map((d) => `${d.key}=…`).join(",")}): ${missing.map((d) => d.label).join(", ")}`,
      { field: "dims" },
    );
  }
}

export async function uploadModel(
  caller: ServiceCaller,
  upload: ModelUpload,
  limits: UploadLimits,
  store: ArtifactStore,
  prisma: PrismaClient = db(),
): Promise<UploadResult> {
  checkUploadRequest(upload, limits);
  // The slot is taken before a byte is read: a refused upload costs the server nothing.
  return withUploadSlot(limits.maxConcurrent ?? env().MODEL_UPLOAD_MAX_CONCURRENT, () =>
    stageAndRegister(caller, upload, limits, store, prisma),
  );
}

async function stageAndRegister(
  caller: ServiceCaller,
  upload: ModelUpload,
  limits: UploadLimits,
  store: ArtifactStore,
  prisma: PrismaClient,
): Promise<UploadResult> {
  const received = await stageBody(upload, limits, store);
  const childLimits = { timeoutMs: limits.validateTimeoutMs, memoryLimitBytes: limits.validateMaxRssBytes };
  const unpackDir = `${received.path}${UNPACK_SUFFIX}`;
  let staged: StagedArtifact = received;
  try {
    let modelPath = received.path;
    let format: ArtifactFormat = "onnx";
    let withDataFiles = false;
    if (received.archive) {
      const unpacked = await unpackModelArchive(received.path, received.archive, unpackDir, {
        maxBytes: limits.archiveMaxBytes,
        limitName: "MODEL_ARCHIVE_MAX_BYTES",
      });
      await store.discard(received); // what is kept is packed again from the directory
      modelPath = unpacked.modelPath;
      withDataFiles = true;
    }
    const validation = await validateOnnxFile(modelPath, childLimits, { withDataFiles });
    let analysis;
    try {
      analysis = await analyzeOnnxFileInSandbox(
        modelPath,
        { dims: upload.dims, probe: childLimits, batchAxes: upload.batchAxes, withDataFiles },
        childLimits,
      );
    } catch (error) {
      // Validation has decoded the file already; this is a file the analysis cannot read after all.
      if (error instanceof OnnxFileError) throw new ModelRejectedError("NOT_ONNX", error.message);
      if (error instanceof ModelAnalysisInputError) throw invalidInput(error.message, { field: "batchAxes" });
      throw error;
    }
    checkServingDims(analysis, upload);
    if (received.archive) {
      // The stored form: the bundle (model.onnx and the files its tensors name), or the bare .onnx when it names none.
      const modelBytes = (await stat(modelPath)).size;
      const files = new Map<string, number>();
      for (const file of validation.dataFiles) files.set(file, (await stat(`${unpackDir}/${file}`)).size);
      format = files.size > 0 ? "onnx-bundle" : "onnx";
      staged = await store.stage(
        files.size > 0 ? bundleBytes(unpackDir, files, modelBytes) : createReadStream(modelPath),
        Number.MAX_SAFE_INTEGER,
      );
    }
    const result = await registerModelVersion(
      {
        actor: userActor(caller.user),
        createdById: caller.user.id,
        requestId: caller.requestId,
        name: upload.name,
        description: upload.description,
        staged,
        format,
        analysis: toStoredAnalysis(analysis, validation, upload.batchAxes),
        servingDims: servingDimsOf(analysis),
        source: "upload",
        auditAction: upload.auditAction ?? "model.upload",
        fileName: upload.fileName,
      },
      store,
      prisma,
    );
    return {
      ...result,
      sha256: staged.sha256,
      bytes: staged.bytes,
      format,
      dataFiles: validation.dataFiles,
      flops: analysis.flops.status,
    };
  } catch (error) {
    await store.discard(staged);
    throw error;
  } finally {
    if (received.archive) {
      await store.discard(received);
      await rm(unpackDir, { recursive: true, force: true });
    }
  }
}
