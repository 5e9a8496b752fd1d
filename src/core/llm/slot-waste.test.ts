import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { requestLevelSlotWaste } from "./slot-waste";

describe("F-60 request-level batching slot waste", () => {
  it("TV-065: a sequence done at 10 tokens in a batch whose others need 100 wastes (100 − 10) / 100 = 90% of its slot", () => {
    expect(requestLevelSlotWaste(10, 100)).toBeCloseTo(0.9, 15);
  });

  it("TV-065 self-check: one reply ends at 20 tokens while another runs 500 → 96% idle", () => {
    expect(requestLevelSlotWaste(20, 500)).toBeCloseTo(0.96, 15);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => requestLevelSlotWaste(10, 0)).toThrow(PlanningInputError);
    expect(() => requestLevelSlotWaste(200, 100)).toThrow(/^tokensNeeded/);
  });
});
