// model_version.analysis read back: rows stored before the analysis grew (no upperBounds, no Constant-node or
// body counts, no toFix/batching) stay readable, a row from a future version is not read, a corrupt one throws.
import { describe, expect, it } from "vitest";
import { CorruptJsonColumnError } from "@/contracts/json-column";
import { readStoredAnalysis } from "./models-analysis";

/** An analysis in the shape the first stored rows have. */
const firstShape = {
  schemaVersion: 1,
  summary: {
    irVersion: 8,
    producer: { name: "pytorch", version: "2.1" },
    opsets: [{ domain: "", version: 17 }],
    defaultOpset: 17,
    inputs: [{ name: "x", dataType: "float32", shape: ["N", 3, 224, 224] }],
    outputs: [{ name: "y", dataType: "float32", shape: ["N", 1000] }],
    parameters: {
      parameters: 1570,
      weightBytes: 6280,
      initializers: 2,
      batchNormStatistics: 0,
      externalInitializers: [],
    },
    dynamicDims: {
      dims: [{ input: "x", axis: 0, symbol: "N", key: "N", role: "batch" }],
      mustFix: [],
      unknownRank: [],
    },
    dimDefaults: {},
    operators: [{ opType: "Gemm", domain: "", nodes: 1 }],
    nodes: 1,
    syntheticWeights: true,
    externalData: false,
    metadata: {},
  },
  dimValues: {},
  flops: {
    status: "counted",
    perSample: { total: 3000, byOperator: [{ opType: "Gemm", nodes: 1, flops: 3000 }], notCounted: [], unresolved: [] },
    inputs: [{ name: "x", dataType: "float32", shape: [1, 3, 224, 224] }],
    peakRssBytes: null,
  },
  validation: { loadMs: 12.5, peakRssBytes: null, inputNames: ["x"], outputNames: ["y"] },
};

describe("readStoredAnalysis", () => {
  it("reads a row in the first stored shape", () => {
    const read = readStoredAnalysis(firstShape);
    expect(read?.summary.parameters.parameters).toBe(1570);
    expect(read?.summary.parameters.constantNodes).toBeUndefined();
  });

  it("does not read a row from another schema version", () => {
    expect(readStoredAnalysis({ ...firstShape, schemaVersion: 2 })).toBeNull();
    expect(readStoredAnalysis(null)).toBeNull();
  });

  it("throws naming the field for a corrupt row of this version", () => {
    const corrupt = { ...firstShape, flops: { status: "counted", perSample: { total: "many" } } };
    expect(() => readStoredAnalysis(corrupt)).toThrow(CorruptJsonColumnError);
    expect(() => readStoredAnalysis(corrupt)).toThrow(/model_version\.analysis at flops\.perSample/);
  });
});
