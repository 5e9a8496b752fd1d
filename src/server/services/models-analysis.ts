// The analysis a model version keeps (ModelVersion.analysis, JSON): the file's interface and cost as computed at
// registration, plus what validation measured. Per-node FLOPs are left out (thousands of rows for BERT); the
// totals by operator stay.
import type { FlopCount } from "@/core/model-analysis/flops";
import type { ConcreteInput } from "@/core/model-analysis/dynamic-dims";
import type { ModelSummary } from "@/core/model-analysis/summarize";
import type { ModelAnalysis } from "@/lib/onnx/analyze-model";
import type { ModelValidation } from "@/lib/onnx/validate-model";

export const STORED_ANALYSIS_VERSION = 1;

export type StoredFlops =
  | { status: "counted"; perSample: Omit<FlopCount, "nodes">; inputs: ConcreteInput[]; peakRssBytes: number | null }
  | { status: "unavailable"; code: string; message: string; operator?: string };

export interface StoredAnalysis {
  schemaVersion: typeof STORED_ANALYSIS_VERSION;
  summary: ModelSummary;
  /** Values used for dynamic dimensions other than the batch. */
  dimValues: Record<string, number>;
  /** Batch-axis overrides given at registration, by tensor (null: no batch axis); absent when none. */
  batchAxes?: Record<string, number | null>;
  flops: StoredFlops;
  validation: {
    /** ONNX Runtime session creation, in ms: the load part of a cold start. */
    loadMs: number;
    peakRssBytes: number | null;
    inputNames: string[];
    outputNames: string[];
    /** External data files its tensors name, relative to the model (absent: a self-contained file). */
    dataFiles?: string[];
  };
}

export function toStoredAnalysis(
  analysis: ModelAnalysis,
  validation: ModelValidation,
  batchAxes?: Record<string, number | null>,
): StoredAnalysis {
  const flops: StoredFlops =
    analysis.flops.status === "counted"
      ? {
          status: "counted",
          perSample: {
            total: analysis.flops.perSample.total,
            byOperator: analysis.flops.perSample.byOperator,
            notCounted: analysis.flops.perSample.notCounted,
            unresolved: analysis.flops.perSample.unresolved,
            upperBounds: analysis.flops.perSample.upperBounds,
          },
          inputs: analysis.flops.inputs,
          peakRssBytes: analysis.flops.peakRssBytes,
        }
      : analysis.flops;
  return {
    schemaVersion: STORED_ANALYSIS_VERSION,
    summary: analysis.summary,
    dimValues: analysis.dimValues,
    ...(batchAxes && Object.keys(batchAxes).length ? { batchAxes } : {}),
    flops,
    validation: {
      loadMs: Math.round(validation.loadMs * 10) / 10,
      peakRssBytes: validation.peakRssBytes,
      inputNames: validation.inputNames,
      outputNames: validation.outputNames,
      ...(validation.dataFiles.length ? { dataFiles: validation.dataFiles } : {}),
    },
  };
}

/** The serving input shape's concrete values: only the dimensions that must be fixed (never the batch). */
export function servingDimsOf(analysis: ModelAnalysis): Record<string, number> {
  const out: Record<string, number> = {};
  for (const key of analysis.summary.dynamicDims.mustFix) {
    const value = analysis.dimValues[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

/** Reads a stored analysis back; null for a shape this code does not know (a row from a future version). */
export function readStoredAnalysis(json: unknown): StoredAnalysis | null {
  if (typeof json !== "object" || json === null) return null;
  const a = json as Partial<StoredAnalysis>;
  return a.schemaVersion === STORED_ANALYSIS_VERSION && a.summary && a.flops ? (a as StoredAnalysis) : null;
}
