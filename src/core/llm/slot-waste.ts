import { PlanningInputError } from "../planning/errors";
import { nonNegativeInteger, positiveInteger } from "../batching/guards";

/**
 * Request-level batching holds a finished sequence's slot until the longest sequence in the batch ends (F-60);
 * continuous batching reclaims it at EOS. Wasted share of the slot = 1 − needed / longest.
 */
export function requestLevelSlotWaste(tokensNeeded: number, longestTokens: number): number {
  nonNegativeInteger("tokensNeeded", tokensNeeded);
  positiveInteger("longestTokens", longestTokens);
  if (tokensNeeded > longestTokens) {
    throw new PlanningInputError(
      "inconsistent",
      "tokensNeeded",
      `cannot exceed the longest sequence (${longestTokens})`,
    );
  }
  return 1 - tokensNeeded / longestTokens;
}
