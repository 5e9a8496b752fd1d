import { nonNegativeInteger, positiveInteger } from "../batching/guards";

/**
 * Prefix caching (F-63): N requests sharing a P-token prefix compute it once, avoiding (N − 1)·P prefill token-steps,
 * subject to cache hits, eviction and overhead.
 */
export function avoidedPrefillTokens(requests: number, prefixTokens: number): number {
  positiveInteger("requests", requests);
  nonNegativeInteger("prefixTokens", prefixTokens);
  return (requests - 1) * prefixTokens;
}
