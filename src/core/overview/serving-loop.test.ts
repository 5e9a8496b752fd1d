import { describe, expect, it } from "vitest";
import { servingLoop, type LoopFacts } from "./serving-loop";

const none: LoopFacts = { deployments: 0, completeProfiles: 0, proposals: 0, appliedProposals: 0 };
const doneKeys = (facts: LoopFacts) =>
  servingLoop(facts)
    .steps.filter((s) => s.done)
    .map((s) => s.key);

describe("servingLoop", () => {
  it("an empty system: nothing done, profile is next, and it needs a deployment first", () => {
    expect(servingLoop(none)).toEqual({
      steps: [
        { key: "profile", done: false },
        { key: "optimize", done: false },
        { key: "propose", done: false },
        { key: "approve", done: false },
      ],
      next: "profile",
      needsDeployment: true,
    });
  });

  it("the npm start system (one deployment, no profile): profile is next, nothing else to do first", () => {
    expect(servingLoop({ ...none, deployments: 1 })).toMatchObject({ next: "profile", needsDeployment: false });
  });

  it("a complete profile makes optimize next", () => {
    expect(doneKeys({ ...none, deployments: 1, completeProfiles: 1 })).toEqual(["profile"]);
    expect(servingLoop({ ...none, deployments: 1, completeProfiles: 1 }).next).toBe("optimize");
  });

  it("a proposal ticks optimize and propose (proposing happens from the Optimizer); approve is next", () => {
    const facts = { ...none, deployments: 1, completeProfiles: 2, proposals: 1 };
    expect(doneKeys(facts)).toEqual(["profile", "optimize", "propose"]);
    expect(servingLoop(facts).next).toBe("approve");
  });

  it("an applied proposal closes the loop: no next step", () => {
    expect(servingLoop({ deployments: 1, completeProfiles: 1, proposals: 3, appliedProposals: 1 })).toMatchObject({
      next: null,
    });
  });

  it("a later step done implies the earlier ones, even after the profiles were deleted", () => {
    expect(doneKeys({ ...none, deployments: 1, proposals: 1, appliedProposals: 1 })).toEqual([
      "profile",
      "optimize",
      "propose",
      "approve",
    ]);
    // An estimator proposal without any profile of ours still means a proposal was made and optimized.
    expect(doneKeys({ ...none, deployments: 1, proposals: 1 })).toEqual(["profile", "optimize", "propose"]);
    expect(servingLoop({ ...none, proposals: 1 }).needsDeployment).toBe(false);
  });
});
