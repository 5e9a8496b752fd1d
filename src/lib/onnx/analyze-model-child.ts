// The model analysis's child process (run with `--import tsx` by analyze-in-sandbox.ts): decodes the whole file,
// summarises it, and counts FLOPs from one zero-input run (itself in a grandchild, probe-shapes-child.mjs). One IPC
// request ({path, options}), one answer; the parent kills it past its time or memory limit, so a file that blows
// up the decoder costs this process, never the server. Its environment is the sandbox's (no server secrets).
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { analyzeOnnxFile, type AnalyzeOptions } from "./analyze-model";
import { OnnxFileError } from "./decode-model";

export type AnalyzeChildReply =
  | { ok: true; analysis: Awaited<ReturnType<typeof analyzeOnnxFile>> }
  | { ok: false; kind: "onnx-file"; parameter: string; message: string }
  | { ok: false; kind: "analysis-input"; code: string; parameter: string; message: string }
  | { ok: false; kind: "internal"; diagnostics: string };

process.once("message", async (request: { path: string; options: AnalyzeOptions }) => {
  let answer: AnalyzeChildReply;
  try {
    answer = { ok: true, analysis: await analyzeOnnxFile(request.path, request.options) };
  } catch (error) {
    if (error instanceof OnnxFileError)
      answer = { ok: false, kind: "onnx-file", parameter: error.parameter, message: error.message };
    else if (error instanceof ModelAnalysisInputError)
      answer = {
        ok: false,
        kind: "analysis-input",
        code: error.code,
        parameter: error.parameter,
        message: error.message,
      };
    else answer = { ok: false, kind: "internal", diagnostics: String((error as Error)?.stack ?? error).slice(0, 4000) };
  }
  // With the answer, this process's peak resident memory: the parent's /proc sampling can miss a quick child.
  process.send!({ ...answer, peakRssBytes: process.resourceUsage().maxRSS * 1024 }, () => process.exit(0));
});
