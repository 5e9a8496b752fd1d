import { EstimatorError } from "./errors";

/*
 * Approval policy for the estimator's proposals (Packrat §3.8 closes the loop; an SRE decides how far). Either every
 * proposal waits for an SRE, or proposals inside bounds the SRE set are approved by the control plane itself.
 */

export type PolicyMode = "require_approval" | "auto_approve";
/** scale_only: only changes the agent makes without new thread counts (batch sizes, instance counts); any: also active-passive. */
export type PolicyChanges = "scale_only" | "any";

export interface ApprovalPolicy {
  mode: PolicyMode;
  /** Auto-approve only proposals whose B lies in [minBatch, maxBatch]. */
  minBatch: number;
  maxBatch: number;
  /** Auto-approve only one doubling or one halving of B at a time. */
  singleStep: boolean;
  changes: PolicyChanges;
  /** At most this many auto-approvals per deployment in any hour. */
  maxPerHour: number;
}

export const DEFAULT_APPROVAL_POLICY: Readonly<ApprovalPolicy> = Object.freeze({
  mode: "require_approval",
  minBatch: 1,
  maxBatch: 64,
  singleStep: true,
  changes: "scale_only",
  maxPerHour: 4,
});

const MAX_BATCH = 65_536;

function fail(parameter: string, rule: string, value: unknown): never {
  throw new EstimatorError("invalid-parameter", parameter, `must be ${rule}, got ${String(value)}`);
}

/** Every field checked; the bounds must be ordered. */
export function validateApprovalPolicy(policy: ApprovalPolicy): ApprovalPolicy {
  const p = policy;
  if (p.mode !== "require_approval" && p.mode !== "auto_approve")
    fail("mode", '"require_approval" or "auto_approve"', p.mode);
  if (!(Number.isInteger(p.minBatch) && p.minBatch >= 1 && p.minBatch <= MAX_BATCH))
    fail("minBatch", `an integer in 1..${MAX_BATCH}`, p.minBatch);
  if (!(Number.isInteger(p.maxBatch) && p.maxBatch >= 1 && p.maxBatch <= MAX_BATCH))
    fail("maxBatch", `an integer in 1..${MAX_BATCH}`, p.maxBatch);
  if (p.maxBatch < p.minBatch) fail("maxBatch", `≥ minBatch (${p.minBatch})`, p.maxBatch);
  if (typeof p.singleStep !== "boolean") fail("singleStep", "a boolean", p.singleStep);
  if (p.changes !== "scale_only" && p.changes !== "any") fail("changes", '"scale_only" or "any"', p.changes);
  if (!(Number.isInteger(p.maxPerHour) && p.maxPerHour >= 0 && p.maxPerHour <= 1000))
    fail("maxPerHour", "an integer in 0..1000", p.maxPerHour);
  return {
    mode: p.mode,
    minBatch: p.minBatch,
    maxBatch: p.maxBatch,
    singleStep: p.singleStep,
    changes: p.changes,
    maxPerHour: p.maxPerHour,
  };
}

export interface PlanItem {
  count: number;
  threads: number;
  batch: number;
}

/**
 * How the agent will move from one plan to the other (§3.7), read from the ⟨count, threads, batch⟩ items the way
 * the agent's diff reads instances: the same instances per thread count → only their batches change; the same thread
 * counts in other numbers → instances are added or stopped (scale); any new or vanished thread count → active-passive.
 */
export type ChangeKind = "batch-only" | "scale" | "active-passive";

export function changeKind(current: readonly PlanItem[], proposed: readonly PlanItem[]): ChangeKind {
  const perThreads = (items: readonly PlanItem[]) => {
    const m = new Map<number, number>();
    for (const i of items) {
      if (!(Number.isInteger(i.count) && i.count >= 0)) fail("count", "an integer ≥ 0", i.count);
      if (!(Number.isInteger(i.threads) && i.threads >= 1)) fail("threads", "a positive integer", i.threads);
      if (i.count > 0) m.set(i.threads, (m.get(i.threads) ?? 0) + i.count);
    }
    return m;
  };
  const a = perThreads(current);
  const b = perThreads(proposed);
  const sameThreads = a.size === b.size && [...a.keys()].every((t) => b.has(t));
  if (!sameThreads) return "active-passive";
  return [...a].every(([t, n]) => b.get(t) === n) ? "batch-only" : "scale";
}

export interface AutoApprovalInput {
  policy: ApprovalPolicy;
  currentB: number;
  proposedB: number;
  change: ChangeKind;
  /** Auto-approvals of this deployment in the last hour, before this one. */
  autoApprovalsLastHour: number;
  /** Set when the proposal has no plan (no profile, or the optimizer found none): nothing to approve. */
  blockedReason: string | null;
}

export type AutoApprovalVerdict = { allow: true } | { allow: false; reasons: string[] };

/** Whether the control plane may approve a proposal by itself; when not, every reason, so the SRE sees them all. */
export function evaluateAutoApproval(input: AutoApprovalInput): AutoApprovalVerdict {
  const policy = validateApprovalPolicy(input.policy);
  const { currentB, proposedB } = input;
  if (!(Number.isInteger(currentB) && currentB >= 1)) fail("currentB", "a positive integer", currentB);
  if (!(Number.isInteger(proposedB) && proposedB >= 1)) fail("proposedB", "a positive integer", proposedB);
  if (!(Number.isInteger(input.autoApprovalsLastHour) && input.autoApprovalsLastHour >= 0)) {
    fail("autoApprovalsLastHour", "an integer ≥ 0", input.autoApprovalsLastHour);
  }
  if (policy.mode === "require_approval") return { allow: false, reasons: ["the policy requires an SRE's approval"] };
  const reasons: string[] = [];
  if (input.blockedReason) reasons.push(`no plan to apply (${input.blockedReason})`);
  if (proposedB < policy.minBatch || proposedB > policy.maxBatch) {
    reasons.push(`B = ${proposedB} is outside the policy's bounds [${policy.minBatch}, ${policy.maxBatch}]`);
  }
  if (policy.singleStep && proposedB !== currentB * 2 && proposedB * 2 !== currentB) {
    reasons.push(`${currentB} → ${proposedB} is more than one doubling or halving`);
  }
  if (policy.changes === "scale_only" && input.change === "active-passive") {
    reasons.push("the plan changes thread counts (active-passive), and the policy allows scale-only changes");
  }
  if (input.autoApprovalsLastHour >= policy.maxPerHour) {
    reasons.push(
      `${input.autoApprovalsLastHour} auto-approval${input.autoApprovalsLastHour === 1 ? "" : "s"} in the last hour reach the policy's limit of ${policy.maxPerHour}`,
    );
  }
  return reasons.length === 0 ? { allow: true } : { allow: false, reasons };
}
