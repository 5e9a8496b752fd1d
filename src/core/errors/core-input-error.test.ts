import { describe, expect, it } from "vitest";
import { AllocatorError } from "../allocator/errors";
import { AlertRuleError } from "../alerts/alert-rules";
import { EstimatorError } from "../estimator/errors";
import { ModelAnalysisInputError } from "../model-analysis/errors";
import { OptimizerInputError } from "../optimizer/errors";
import { PlanningInputError } from "../planning/errors";
import { ProfileError } from "../profile/profile";
import { StatsInputError } from "../stats/errors";
import { TopologyError } from "../topology/errors";
import { CoreInputError, isCoreInputError } from "./core-input-error";

// Every refusal class of src/core, built as its module builds it: each must be a CoreInputError (so the edges map
// it) and keep its own class, name, code and parameter.
const refusals = [
  new AllocatorError("cannot-fit", "plan", "needs 9 cores; the budget has 8"),
  new AlertRuleError("invalid-threshold", "latencyGap", "must be a finite number > 0, got 0"),
  new EstimatorError("invalid-parameter", "alpha", "must be in (0, 1]"),
  new ModelAnalysisInputError("bad_batch_axis", "input", "axis 7 is out of range"),
  new OptimizerInputError("too_large", "batch", "too many table cells"),
  new PlanningInputError("not_positive", "arrivalRatePerS", "must be > 0, got 0"),
  new ProfileError("duplicate_cell", "cell t=1, b=1 appears twice", 3),
  new StatsInputError("too_few_samples", "samples", "needs at least 2"),
  new TopologyError("invalid-cpulist", "cpulist", 'cannot read "x"'),
] as const;

describe("CoreInputError", () => {
  it.each(refusals.map((e) => [e.name, e] as const))(
    "%s is a CoreInputError with its own name, code and parameter",
    (name, error) => {
      expect(error).toBeInstanceOf(CoreInputError);
      expect(error).toBeInstanceOf(Error);
      expect(isCoreInputError(error)).toBe(true);
      expect(error.name).toBe(name);
      expect(error.name).not.toBe("CoreInputError");
      expect(typeof error.code).toBe("string");
      expect(error.parameter).toBeTruthy();
    },
  );

  it("keeps the messages the classes wrote before (parameter-prefixed where they were)", () => {
    expect(new OptimizerInputError("too_large", "batch", "too many").message).toBe("batch: too many");
    expect(new AllocatorError("cannot-fit", "plan", "needs 9 cores").message).toBe("needs 9 cores");
    expect(new ProfileError("not_a_list", "a profile is a list").parameter).toBe("profile");
  });

  it("tells other errors apart", () => {
    expect(isCoreInputError(new RangeError("x"))).toBe(false);
    expect(isCoreInputError({ code: "too_large", parameter: "batch", message: "x" })).toBe(false);
  });
});
