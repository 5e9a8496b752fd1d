import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveInputShapes, type ConcreteInput } from "@/core/model-analysis/dynamic-dims";
import { ModelAnalysisInputError } from "@/core/model-analysis/errors";
import { countFlops, type FlopCount } from "@/core/model-analysis/flops";
import { summarizeModel, type ModelSummary } from "@/core/model-analysis/summarize";
import { decodeOnnxModel } from "./decode-model";
import { probeShapes, ShapeProbeError, type ProbeOptions } from "./probe-shapes";

/**
 * What an ONNX file costs: its interface, parameters and weight bytes (read from the file), and FLOPs per sample
 * (from the shapes of one batch-1 run on zeros). When the run is impossible, the static part is still returned
 * with a message saying why FLOPs are missing.
 */
export type FlopsOutcome =
  | {
      status: "counted";
      /** FLOPs of one sample (a batch-1 forward pass) at `inputs`' shapes. */
      perSample: FlopCount;
      inputs: ConcreteInput[];
      peakRssBytes: number | null;
    }
  | { status: "unavailable"; code: string; message: string; operator?: string };

export interface ModelAnalysis {
  summary: ModelSummary;
  /** Values used for the dynamic dimensions other than the batch (the caller's, else the file's defaults). */
  dimValues: Record<string, number>;
  flops: FlopsOutcome;
}

export interface AnalyzeOptions {
  /** Values for dynamic dimensions, by symbol (e.g. {sequence: 128}) or `input[axis]` for unnamed ones. */
  dims?: Record<string, number>;
  probe?: ProbeOptions;
  /** Batch-axis overrides by tensor (null: no batch axis); a bad one throws ModelAnalysisInputError naming it. */
  batchAxes?: Record<string, number | null>;
  /** The file's external data files lie beside it (an unpacked archive, already validated): run it anyway. */
  withDataFiles?: boolean;
}

export async function analyzeOnnxFile(path: string, options: AnalyzeOptions = {}): Promise<ModelAnalysis> {
  // Decode in a scope of its own so the file's bytes can be collected before the child loads them again.
  const summaryGraph = decodeOnnxModel(await readFile(path));
  const summary = summarizeModel(summaryGraph, options.batchAxes ?? {});
  const dimValues = { ...summary.dimDefaults, ...(options.dims ?? {}) };

  if (summary.externalData && !options.withDataFiles) {
    const names = summary.parameters.externalInitializers;
    return {
      summary,
      dimValues,
      flops: {
        status: "unavailable",
        code: "EXTERNAL_DATA",
        message:
          `the model keeps ${names.length} tensor(s) in external data files (${names.slice(0, 3).join(", ")}${names.length > 3 ? ", …" : ""}); ` +
          "upload the .onnx with its data files as one .tar or .zip",
      },
    };
  }

  let inputs: ConcreteInput[];
  try {
    inputs = resolveInputShapes(summaryGraph, dimValues, 1, options.batchAxes ?? {});
  } catch (error) {
    if (!(error instanceof ModelAnalysisInputError)) throw error;
    return { summary, dimValues, flops: { status: "unavailable", code: error.code, message: error.message } };
  }

  try {
    const probe = await probeShapes(path, inputs, { ...options.probe, besideModel: summary.externalData });
    return {
      summary,
      dimValues,
      flops: {
        status: "counted",
        perSample: countFlops(summaryGraph, probe.shapes),
        inputs,
        peakRssBytes: probe.peakRssBytes,
      },
    };
  } catch (error) {
    if (!(error instanceof ShapeProbeError)) throw error;
    return {
      summary,
      dimValues,
      flops: {
        status: "unavailable",
        code: error.code,
        message: error.message,
        ...(error.operator ? { operator: error.operator } : {}),
      },
    };
  }
}

/** The same for bytes in memory (an upload): written to a private temporary file for the child to load. */
export async function analyzeOnnxBytes(bytes: Uint8Array, options: AnalyzeOptions = {}): Promise<ModelAnalysis> {
  // Fail on a non-ONNX upload before touching the disk.
  decodeOnnxModel(bytes);
  const dir = await mkdtemp(join(tmpdir(), "packrat-analyze-"));
  try {
    const path = join(dir, "model.onnx");
    await writeFile(path, bytes);
    return await analyzeOnnxFile(path, options);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
