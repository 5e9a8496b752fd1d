// The analysis a model version keeps (ModelVersion.analysis, JSON): the file's interface and cost as computed at
// registration, plus what validation measured. Per-node FLOPs are left out (thousands of rows for BERT); the
// totals by operator stay.
import { z } from "zod";
import type { StoredJsonValue } from "@/contracts/json-column";
import {
  modelAnalysisColumn,
  STORED_ANALYSIS_VERSION,
  type StoredAnalysis,
  type StoredFlops,
} from "@/contracts/model-columns";
import type { ModelAnalysis } from "@/lib/onnx/analyze-model";
import type { ModelValidation } from "@/lib/onnx/validate-model";

export { STORED_ANALYSIS_VERSION, type StoredAnalysis, type StoredFlops } from "@/contracts/model-columns";

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

/**
 * Reads a stored analysis back; null for a row from a future version (another schemaVersion). A row of this
 * version that does not match is corrupt: CorruptJsonColumnError.
 */
const versioned = z.looseObject({ schemaVersion: z.unknown() });

export function readStoredAnalysis(json: StoredJsonValue | undefined): StoredAnalysis | null {
  if (versioned.safeParse(json).data?.schemaVersion !== STORED_ANALYSIS_VERSION) return null;
  return modelAnalysisColumn.read(json);
}
