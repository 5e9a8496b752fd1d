import { PlanningInputError } from "../planning/errors";
import { finiteResult, nonNegativeInteger, positive, positiveInteger } from "../batching/guards";

/**
 * KV-cache size (F-57): each token stores a key and a value vector in every layer for every KV head. Grouped-query
 * attention shares KV heads among query heads, so the cache follows kvHeads, not queryHeads.
 */

export interface KvShape {
  layers: number;
  kvHeads: number;
  headDim: number;
  /** 2 for FP16/BF16, 1 for FP8/INT8. */
  bytesPerElement: number;
}

/** 2 × layers × kvHeads × headDim × bytes per element. */
export function kvBytesPerToken(shape: KvShape): number {
  positiveInteger("layers", shape.layers);
  positiveInteger("kvHeads", shape.kvHeads);
  positiveInteger("headDim", shape.headDim);
  positive("bytesPerElement", shape.bytesPerElement);
  return 2 * shape.layers * shape.kvHeads * shape.headDim * shape.bytesPerElement;
}

/** The shape of a model preset at a cache precision (default FP16). */
export function kvShapeOf(model: { layers: number; kvHeads: number; headDim: number }, bytesPerElement = 2): KvShape {
  return { layers: model.layers, kvHeads: model.kvHeads, headDim: model.headDim, bytesPerElement };
}

/** H_query / H_kv: how much GQA shrinks the cache against full multi-head attention. */
export function gqaReduction(queryHeads: number, kvHeads: number): number {
  positiveInteger("queryHeads", queryHeads);
  positiveInteger("kvHeads", kvHeads);
  if (kvHeads > queryHeads) {
    throw new PlanningInputError("inconsistent", "kvHeads", `cannot exceed queryHeads (${kvHeads} > ${queryHeads})`);
  }
  return queryHeads / kvHeads;
}

/**
 * Cache bytes for `sequences` sequences at a context length. Beam width k keeps k hypotheses per user, multiplying
 * the footprint by k (F-59: "four-way beam search quadruples both" arithmetic and cache).
 */
export function kvBytes(bytesPerToken: number, contextTokens: number, sequences = 1, beamWidth = 1): number {
  positive("bytesPerToken", bytesPerToken);
  nonNegativeInteger("contextTokens", contextTokens);
  nonNegativeInteger("sequences", sequences);
  positiveInteger("beamWidth", beamWidth);
  return finiteResult("contextTokens", bytesPerToken * contextTokens * sequences * beamWidth);
}
