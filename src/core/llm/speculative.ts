import { nonNegative, nonNegativeInteger, positive, unitInterval } from "../batching/guards";

/**
 * Speculative decoding (Eq. 15): a draft proposes γ tokens, the target verifies them in one pass. With i.i.d.
 * acceptance α the expected tokens per target pass are (1 − α^(γ+1)) / (1 − α), counting the target's own token.
 */

/** E[tokens per target pass]; α = 1 is the limit γ + 1 (every draft accepted). */
export function expectedTokensPerPass(acceptance: number, draftTokens: number): number {
  unitInterval("acceptance", acceptance);
  nonNegativeInteger("draftTokens", draftTokens);
  if (acceptance === 1) return draftTokens + 1;
  return (1 - acceptance ** (draftTokens + 1)) / (1 - acceptance);
}

export interface SpeculativeInput {
  acceptance: number;
  draftTokens: number;
  /** One draft step (a batch-1 draft decode step). */
  draftStepMs: number;
  /** One target pass verifying γ + 1 positions (≈ one weight stream at batch 1). */
  targetVerifyMs: number;
  /** The plain decode step it replaces; default the verify pass. */
  targetStepMs?: number;
}

export interface SpeculativeEstimate {
  expectedTokens: number;
  /** (γ · t_draft + t_verify) / E */
  timePerTokenMs: number;
  /** t_target / time per token; below 1 it is a net loss. */
  speedup: number;
}

export function speculativeDecoding(input: SpeculativeInput): SpeculativeEstimate {
  const expectedTokens = expectedTokensPerPass(input.acceptance, input.draftTokens);
  nonNegative("draftStepMs", input.draftStepMs);
  positive("targetVerifyMs", input.targetVerifyMs);
  const targetStepMs = positive("targetStepMs", input.targetStepMs ?? input.targetVerifyMs);
  const timePerTokenMs = (input.draftTokens * input.draftStepMs + input.targetVerifyMs) / expectedTokens;
  return { expectedTokens, timePerTokenMs, speedup: targetStepMs / timePerTokenMs };
}
