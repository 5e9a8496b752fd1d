// Is this file a model an agent can serve? Decided in a child process (validate-model-child.mjs) under a time limit
// and a resident-memory watchdog, so that a hostile or broken upload costs the child, never the control plane.
import { projectFile } from "@/lib/project-file";
import { runWatchedChild, type WatchedChildLimits } from "./run-watched-child";

export type ModelRejectionCode =
  | "EMPTY"
  | "TRUNCATED"
  | "NOT_ONNX"
  | "EXTERNAL_DATA"
  | "BAD_ARCHIVE"
  | "UNSUPPORTED_OPERATOR"
  | "ORT_REJECTED"
  | "TOO_LARGE"
  | "TIMEOUT"
  | "MEMORY_LIMIT"
  | "VALIDATION_FAILED";

/**
 * Why a file is not accepted as a model; `parameter` names what was wrong (the uploaded file). The message is for
 * the uploader; `diagnostics` (what a crashed child printed) is for the server's log only.
 */
export class ModelRejectedError extends Error {
  readonly parameter = "file";
  constructor(
    readonly code: ModelRejectionCode,
    message: string,
    readonly operator?: string,
    readonly diagnostics?: string,
  ) {
    super(message);
    this.name = "ModelRejectedError";
  }
}

export interface ModelValidation {
  /** ONNX Runtime's session creation time in the child, in ms (the load part of a cold start). */
  loadMs: number;
  inputNames: string[];
  outputNames: string[];
  /** The child's peak resident memory, when /proc tells it. */
  peakRssBytes: number | null;
  /** The external-data files its tensors name, relative to the model (empty for a self-contained file). */
  dataFiles: string[];
}

type ChildReply =
  | { ok: true; loadMs: number; inputNames: string[]; outputNames: string[]; dataFiles: string[] }
  | { ok: false; code: ModelRejectionCode; message: string; operator?: string; diagnostics?: string };

let childScript: string | undefined;
const validateChildScript = () =>
  (childScript ??= projectFile(
    "src/lib/onnx/validate-model-child.mjs",
    () => new URL("./validate-model-child.mjs", import.meta.url),
  ));

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

/**
 * Resolves with what ONNX Runtime made of the file; rejects with ModelRejectedError saying why not. With
 * `withDataFiles` (a model unpacked from an archive into a directory of its own) tensors may keep their data in
 * files beside it, each checked to lie inside that directory; without, external data is refused.
 */
export async function validateOnnxFile(
  path: string,
  limits: WatchedChildLimits,
  options: { withDataFiles?: boolean } = {},
): Promise<ModelValidation> {
  const outcome = await runWatchedChild<ChildReply>(
    validateChildScript(),
    { path, withDataFiles: options.withDataFiles === true },
    limits,
  );
  switch (outcome.kind) {
    case "answered": {
      const reply = outcome.reply;
      if (!reply.ok) throw new ModelRejectedError(reply.code, reply.message, reply.operator, reply.diagnostics);
      return {
        loadMs: reply.loadMs,
        inputNames: reply.inputNames,
        outputNames: reply.outputNames,
        peakRssBytes: outcome.peakRssBytes,
        dataFiles: reply.dataFiles ?? [],
      };
    }
    case "killed":
      throw outcome.reason === "TIMEOUT"
        ? new ModelRejectedError(
            "TIMEOUT",
            `validating the model took longer than ${limits.timeoutMs} ms; it was stopped`,
          )
        : new ModelRejectedError(
            "MEMORY_LIMIT",
            `validating the model needed more than ${mib(limits.memoryLimitBytes)} of memory; it was stopped`,
          );
    case "crashed":
      throw outcome.outOfMemory
        ? new ModelRejectedError(
            "MEMORY_LIMIT",
            `validating the model needed more than ${mib(limits.memoryLimitBytes)} of memory`,
          )
        : new ModelRejectedError(
            "VALIDATION_FAILED",
            `validation failed: ${outcome.message}`,
            undefined,
            outcome.diagnostics,
          );
  }
}
