import { nonNegativeInteger, positiveInteger } from "../batching/guards";

/**
 * Paged KV allocation (F-62): a sequence holds ceil(tokens / block) fixed-size blocks, so its internal waste is at
 * most the unfilled tail of its last block. Paging removes fragmentation and over-reservation; it does not reduce
 * how many blocks a sequence needs. (Reported, not modeled here: contiguous allocation wastes 60–80%, PagedAttention
 * under 4%, 2–4× throughput in its evaluation.)
 */

export interface PagedSequence {
  blocks: number;
  /** Token slots allocated but unused in the last block. */
  wastedTokens: number;
  /** wasted / allocated */
  wasteShare: number;
}

export function pagedSequence(tokens: number, blockTokens: number): PagedSequence {
  nonNegativeInteger("tokens", tokens);
  positiveInteger("blockTokens", blockTokens);
  const blocks = Math.ceil(tokens / blockTokens);
  const allocated = blocks * blockTokens;
  const wastedTokens = allocated - tokens;
  return { blocks, wastedTokens, wasteShare: allocated === 0 ? 0 : wastedTokens / allocated };
}
