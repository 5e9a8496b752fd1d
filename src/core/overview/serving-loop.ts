// The loop a new system is taken through — profile, optimize, propose, approve — as a checklist: which steps
// are done (from what the database holds) and which is next. Optimizing leaves no record of its own (the
// Optimizer is a read), so it counts as done once a proposal exists: proposing is done from the Optimizer.

export type LoopStepKey = "profile" | "optimize" | "propose" | "approve";

export interface LoopFacts {
  /** Deployments that exist (not removed): there is something to profile. */
  deployments: number;
  /** Profiles that finished with every cell. */
  completeProfiles: number;
  /** Proposals ever made, in any state. */
  proposals: number;
  /** Proposals an SRE (or a policy) approved that were applied. */
  appliedProposals: number;
}

export interface LoopStep {
  key: LoopStepKey;
  done: boolean;
}
export interface LoopChecklist {
  steps: LoopStep[];
  next: LoopStepKey | null;
  needsDeployment: boolean;
}

export const LOOP_ORDER: readonly LoopStepKey[] = ["profile", "optimize", "propose", "approve"];

export function servingLoop(facts: LoopFacts): LoopChecklist {
  const done: Record<LoopStepKey, boolean> = {
    profile: facts.completeProfiles > 0,
    optimize: facts.proposals > 0,
    propose: facts.proposals > 0,
    approve: facts.appliedProposals > 0,
  };
  // A later step done means the earlier ones were (an applied proposal was proposed, from some profile):
  // a system whose profiles were since deleted still shows its loop closed.
  for (let i = LOOP_ORDER.length - 1; i > 0; i--) if (done[LOOP_ORDER[i]!]) done[LOOP_ORDER[i - 1]!] = true;
  const steps = LOOP_ORDER.map((key) => ({ key, done: done[key] }));
  return {
    steps,
    next: steps.find((s) => !s.done)?.key ?? null,
    needsDeployment: facts.deployments === 0 && !done.profile,
  };
}
