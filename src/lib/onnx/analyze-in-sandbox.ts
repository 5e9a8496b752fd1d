// The model analysis of an uploaded file, in a watched child (analyze-model-child.ts): decoding a file anyone with
// the ml_engineer role sent, whole, is the child's risk and memory, never the server's. The child has the sandbox's
// environment (run-watched-child.ts) and the same kind of limits as validation; its typed refusals come back typed.
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { projectFile } from "@/lib/project-file";
import type { AnalyzeChildReply } from "./analyze-model-child";
import type { AnalyzeOptions, ModelAnalysis } from "./analyze-model";
import { OnnxFileError } from "./decode-model";
import { runWatchedChild, type WatchedChildLimits } from "./run-watched-child";
import { ModelRejectedError } from "./validate-model";

/** The analysis child failed for a reason of the server's (a module that does not load, a bug): not the file's. */
export class AnalysisSandboxError extends Error {
  readonly code = "ANALYSIS_FAILED";
  constructor(readonly diagnostics: string) {
    super("the model analysis failed inside its sandbox process");
    this.name = "AnalysisSandboxError";
  }
}

let childScript: string | undefined;
// From the project root only: a URL beside this module would make the bundler take the .ts child for an asset.
const analyzeChildScript = () => (childScript ??= projectFile("src/lib/onnx/analyze-model-child.ts"));

const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(0)} MiB`;

/** The child's limits: the decoder's memory is `limits`'; its time covers the probe it runs (held to `probe`) too. */
export function analysisChildLimits(limits: WatchedChildLimits): WatchedChildLimits {
  return { timeoutMs: limits.timeoutMs * 2, memoryLimitBytes: limits.memoryLimitBytes };
}

/**
 * analyzeOnnxFile, run in a child: resolves with the analysis; rejects with OnnxFileError or ModelAnalysisInputError
 * as analyzeOnnxFile would, ModelRejectedError when the child ran out of time or memory or crashed, and
 * AnalysisSandboxError for a fault of the server's.
 */
export async function analyzeOnnxFileInSandbox(
  path: string,
  options: AnalyzeOptions,
  limits: WatchedChildLimits,
): Promise<ModelAnalysis> {
  const childLimits = analysisChildLimits(limits);
  const outcome = await runWatchedChild<AnalyzeChildReply>(
    analyzeChildScript(),
    { path, options: { ...options, probe: options.probe ?? limits } },
    childLimits,
    {
      execArgv: ["--import", "tsx"],
      serialization: "advanced",
    },
  );
  switch (outcome.kind) {
    case "answered": {
      const reply = outcome.reply;
      if (reply.ok) return reply.analysis;
      if (reply.kind === "onnx-file")
        return Promise.reject(Object.assign(new OnnxFileError(reply.parameter, ""), { message: reply.message }));
      if (reply.kind === "analysis-input") {
        return Promise.reject(
          Object.assign(new ModelAnalysisInputError(reply.code, reply.parameter, ""), { message: reply.message }),
        );
      }
      throw new AnalysisSandboxError(reply.diagnostics);
    }
    case "killed":
      throw outcome.reason === "TIMEOUT"
        ? new ModelRejectedError(
            "TIMEOUT",
            `analysing the model took longer than ${childLimits.timeoutMs} ms; it was stopped`,
          )
        : new ModelRejectedError(
            "MEMORY_LIMIT",
            `analysing the model needed more than ${mib(childLimits.memoryLimitBytes)} of memory; it was stopped`,
          );
    case "crashed":
      throw outcome.outOfMemory
        ? new ModelRejectedError(
            "MEMORY_LIMIT",
            `analysing the model needed more than ${mib(childLimits.memoryLimitBytes)} of memory`,
          )
        : new ModelRejectedError(
            "VALIDATION_FAILED",
            `analysing the model failed: ${outcome.message}`,
            undefined,
            outcome.diagnostics,
          );
  }
}
