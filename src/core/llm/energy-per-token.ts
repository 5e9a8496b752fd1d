import { positive } from "../batching/guards";

/**
 * Energy per token (F-66, Napkin Math 13.5): the power drawn divided by the tokens served. Idle capacity still draws
 * power, so low utilization inflates J/token.
 */
export function joulesPerToken(powerWatts: number, tokensPerS: number): number {
  return positive("powerWatts", powerWatts) / positive("tokensPerS", tokensPerS);
}

export function joulesPerResponse(powerWatts: number, tokensPerS: number, tokensPerResponse: number): number {
  return joulesPerToken(powerWatts, tokensPerS) * positive("tokensPerResponse", tokensPerResponse);
}
