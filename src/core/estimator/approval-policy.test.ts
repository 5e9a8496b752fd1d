import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  changeKind,
  DEFAULT_APPROVAL_POLICY,
  evaluateAutoApproval,
  validateApprovalPolicy,
  type ApprovalPolicy,
} from "./approval-policy";
import { EstimatorError } from "./errors";

const auto: ApprovalPolicy = {
  mode: "auto_approve",
  minBatch: 1,
  maxBatch: 16,
  singleStep: true,
  changes: "scale_only",
  maxPerHour: 2,
};
const base = {
  policy: auto,
  currentB: 8,
  proposedB: 16,
  change: "batch-only" as const,
  autoApprovalsLastHour: 0,
  blockedReason: null,
};

describe("changeKind: how the agent moves between two plans (§3.7)", () => {
  it("same instances per thread count, only batches differ: ⟨1, 2, 8⟩ → ⟨1, 2, 16⟩ is batch-only", () => {
    expect(changeKind([{ count: 1, threads: 2, batch: 8 }], [{ count: 1, threads: 2, batch: 16 }])).toBe("batch-only");
  });

  it("same thread counts, more instances: ⟨2, 1, 4⟩ → ⟨4, 1, 4⟩ is scale (2 → 4 one-thread instances)", () => {
    expect(changeKind([{ count: 2, threads: 1, batch: 4 }], [{ count: 4, threads: 1, batch: 4 }])).toBe("scale");
  });

  it("a new thread count: ⟨1, 2, 8⟩ → ⟨2, 1, 4⟩ is active-passive (1-thread instances did not exist)", () => {
    expect(changeKind([{ count: 1, threads: 2, batch: 8 }], [{ count: 2, threads: 1, batch: 4 }])).toBe(
      "active-passive",
    );
  });

  it("items split differently but the same instances per thread count are still batch-only: {2×⟨1,1,2⟩} ≡ {⟨1,1,1⟩, ⟨1,1,3⟩}", () => {
    expect(
      changeKind(
        [{ count: 2, threads: 1, batch: 2 }],
        [
          { count: 1, threads: 1, batch: 1 },
          { count: 1, threads: 1, batch: 3 },
        ],
      ),
    ).toBe("batch-only");
  });

  it("is symmetric and a plan against itself is batch-only (property)", () => {
    const items = fc.array(
      fc.record({
        count: fc.integer({ min: 1, max: 4 }),
        threads: fc.integer({ min: 1, max: 4 }),
        batch: fc.integer({ min: 1, max: 32 }),
      }),
      { minLength: 1, maxLength: 4 },
    );
    fc.assert(
      fc.property(items, items, (a, b) => {
        expect(changeKind(a, a)).toBe("batch-only");
        expect(changeKind(a, b)).toBe(changeKind(b, a));
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a thread count of 0, naming it", () => {
    expect(() => changeKind([{ count: 1, threads: 0, batch: 1 }], [])).toThrow(/threads/);
  });
});

describe("evaluateAutoApproval", () => {
  it("the default policy requires an SRE", () => {
    expect(evaluateAutoApproval({ ...base, policy: DEFAULT_APPROVAL_POLICY })).toEqual({
      allow: false,
      reasons: ["the policy requires an SRE's approval"],
    });
  });

  it("allows 8 → 16 inside [1, 16], one doubling, batch-only, 0 of 2 this hour", () => {
    expect(evaluateAutoApproval(base)).toEqual({ allow: true });
    // One halving is one step too: 8 → 4.
    expect(evaluateAutoApproval({ ...base, proposedB: 4 })).toEqual({ allow: true });
  });

  it("refuses B = 32 outside [1, 16], and says 8 → 32 is two doublings", () => {
    const v = evaluateAutoApproval({ ...base, proposedB: 32 });
    expect(v.allow).toBe(false);
    if (v.allow) return;
    expect(v.reasons).toEqual([
      "B = 32 is outside the policy's bounds [1, 16]",
      "8 → 32 is more than one doubling or halving",
    ]);
  });

  it("with singleStep off, 1 → 16 in bounds passes", () => {
    expect(evaluateAutoApproval({ ...base, policy: { ...auto, singleStep: false }, currentB: 1 })).toEqual({
      allow: true,
    });
  });

  it("scale-only refuses an active-passive change; 'any' allows it", () => {
    const v = evaluateAutoApproval({ ...base, change: "active-passive" });
    expect(v.allow).toBe(false);
    expect(evaluateAutoApproval({ ...base, change: "active-passive", policy: { ...auto, changes: "any" } })).toEqual({
      allow: true,
    });
    expect(evaluateAutoApproval({ ...base, change: "scale" })).toEqual({ allow: true });
  });

  it("the hourly limit: 1 of 2 used passes, 2 of 2 used is refused", () => {
    expect(evaluateAutoApproval({ ...base, autoApprovalsLastHour: 1 })).toEqual({ allow: true });
    expect(evaluateAutoApproval({ ...base, autoApprovalsLastHour: 2 })).toEqual({
      allow: false,
      reasons: ["2 auto-approvals in the last hour reach the policy's limit of 2"],
    });
  });

  it("a proposal without a plan is never auto-approved", () => {
    const v = evaluateAutoApproval({ ...base, blockedReason: "no complete compatible profile" });
    expect(v).toEqual({ allow: false, reasons: ["no plan to apply (no complete compatible profile)"] });
  });

  it("allows exactly when every bound holds (property against a direct restatement)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 0, max: 7 }),
        fc.integer({ min: 1, max: 64 }),
        fc.integer({ min: 1, max: 64 }),
        fc.boolean(),
        fc.constantFrom("batch-only", "scale", "active-passive"),
        fc.constantFrom("scale_only", "any"),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        (ce, pe, lo, span, singleStep, change, changes, used, limit) => {
          const currentB = 2 ** ce;
          const proposedB = 2 ** pe;
          const policy: ApprovalPolicy = {
            mode: "auto_approve",
            minBatch: lo,
            maxBatch: lo + span,
            singleStep,
            changes: changes as ApprovalPolicy["changes"],
            maxPerHour: limit,
          };
          const expected =
            proposedB >= lo &&
            proposedB <= lo + span &&
            (!singleStep || Math.abs(pe - ce) === 1) &&
            (changes === "any" || change !== "active-passive") &&
            used < limit;
          expect(
            evaluateAutoApproval({
              policy,
              currentB,
              proposedB,
              change: change as "scale",
              autoApprovalsLastHour: used,
              blockedReason: null,
            }).allow,
          ).toBe(expected);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("validateApprovalPolicy", () => {
  it("refuses maxBatch < minBatch, naming maxBatch", () => {
    try {
      validateApprovalPolicy({ ...auto, minBatch: 8, maxBatch: 4 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(EstimatorError);
      expect((error as EstimatorError).parameter).toBe("maxBatch");
      expect((error as EstimatorError).code).toBe("invalid-parameter");
    }
  });

  it("refuses NaN bounds and an unknown mode", () => {
    expect(() => validateApprovalPolicy({ ...auto, minBatch: Number.NaN })).toThrow(/minBatch/);
    expect(() => validateApprovalPolicy({ ...auto, mode: "yolo" as "auto_approve" })).toThrow(/mode/);
    expect(() => validateApprovalPolicy({ ...auto, maxPerHour: -1 })).toThrow(/maxPerHour/);
  });
});
