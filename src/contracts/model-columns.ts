// The JSON columns of model versions and their profiles.
import { z } from "zod";
import { stoppingRuleSchema } from "./agent-jobs";
import { jsonColumn } from "./json-column";

/** Sizes of a model's dynamic non-batch dimensions by name (e.g. {"sequence": 128}). */
const dimensionSizes = z.record(z.string(), z.number().int().min(1));

/** model_version.servingDims: the sizes the version is served and profiled with unless a request says others. */
export const servingDimsColumn = jsonColumn("model_version.servingDims", dimensionSizes);

/** profile.dimensions: the sizes the profile was measured with. */
export const profileDimensionsColumn = jsonColumn("profile.dimensions", dimensionSizes);

/** profile.stoppingRule: when each cell's measurement stopped (the rule its job was claimed with). */
export const profileStoppingRuleColumn = jsonColumn("profile.stoppingRule", stoppingRuleSchema);

/** The shape model_version.analysis is stored in; a row with another schemaVersion is from code newer than this. */
export const STORED_ANALYSIS_VERSION = 1;

const tensorInfoSchema = z.object({
  name: z.string(),
  dataType: z.string(),
  shape: z.array(z.union([z.number(), z.string(), z.null()])).nullable(),
});
const operatorTallySchema = z.object({ opType: z.string(), domain: z.string(), nodes: z.number() });

/** src/core/model-analysis/summarize.ts ModelSummary; the fields added since the first stored analyses are optional. */
const modelSummarySchema = z.object({
  irVersion: z.number(),
  producer: z.object({ name: z.string(), version: z.string() }),
  opsets: z.array(z.object({ domain: z.string(), version: z.number() })),
  defaultOpset: z.number().nullable(),
  inputs: z.array(tensorInfoSchema),
  outputs: z.array(tensorInfoSchema),
  parameters: z.object({
    parameters: z.number(),
    weightBytes: z.number(),
    initializers: z.number(),
    batchNormStatistics: z.number(),
    quantizationParameters: z.number().optional(),
    constantNodes: z.number().optional(),
    inSubgraphs: z.number().optional(),
    externalInitializers: z.array(z.string()),
  }),
  dynamicDims: z.object({
    dims: z.array(
      z.object({
        input: z.string(),
        axis: z.number(),
        symbol: z.string().nullable(),
        key: z.string(),
        role: z.enum(["batch", "fix"]),
      }),
    ),
    mustFix: z.array(z.string()),
    toFix: z.array(z.object({ key: z.string(), label: z.string(), tensor: z.string(), axis: z.number() })).optional(),
    unknownRank: z.array(z.string()),
    batchAxes: z.record(z.string(), z.number().nullable()).optional(),
    batching: z
      .discriminatedUnion("batchable", [
        z.object({ batchable: z.literal(true) }),
        z.object({ batchable: z.literal(false), tensor: z.string().nullable(), reason: z.string() }),
      ])
      .optional(),
  }),
  dimDefaults: z.record(z.string(), z.number()),
  operators: z.array(operatorTallySchema),
  nodes: z.number(),
  syntheticWeights: z.boolean(),
  externalData: z.boolean(),
  metadata: z.record(z.string(), z.string()),
});

const storedFlopsSchema = z.discriminatedUnion("status", [
  z.object({
    status: z.literal("counted"),
    /** src/core/model-analysis/flops.ts FlopCount without its per-node rows. */
    perSample: z.object({
      total: z.number(),
      byOperator: z.array(z.object({ opType: z.string(), nodes: z.number(), flops: z.number() })),
      notCounted: z.array(operatorTallySchema),
      unresolved: z.array(z.object({ node: z.string(), opType: z.string(), missing: z.string() })),
      upperBounds: z.array(z.string()).optional(),
    }),
    inputs: z.array(z.object({ name: z.string(), dataType: z.string(), shape: z.array(z.number()) })),
    peakRssBytes: z.number().nullable(),
  }),
  z.object({
    status: z.literal("unavailable"),
    code: z.string(),
    message: z.string(),
    operator: z.string().optional(),
  }),
]);

/**
 * model_version.analysis: the file's interface and cost as computed at registration, plus what validation
 * measured (src/server/services/models-analysis.ts writes it).
 */
export const storedAnalysisSchema = z.object({
  schemaVersion: z.literal(STORED_ANALYSIS_VERSION),
  summary: modelSummarySchema,
  /** Values used for dynamic dimensions other than the batch. */
  dimValues: z.record(z.string(), z.number()),
  /** Batch-axis overrides given at registration, by tensor (null: no batch axis); absent when none. */
  batchAxes: z.record(z.string(), z.number().nullable()).optional(),
  flops: storedFlopsSchema,
  validation: z.object({
    /** ONNX Runtime session creation, in ms: the load part of a cold start. */
    loadMs: z.number(),
    peakRssBytes: z.number().nullable(),
    inputNames: z.array(z.string()),
    outputNames: z.array(z.string()),
    /** External data files its tensors name, relative to the model (absent: a self-contained file). */
    dataFiles: z.array(z.string()).optional(),
  }),
});
export type StoredAnalysis = z.infer<typeof storedAnalysisSchema>;
export type StoredFlops = StoredAnalysis["flops"];
export const modelAnalysisColumn = jsonColumn("model_version.analysis", storedAnalysisSchema);
