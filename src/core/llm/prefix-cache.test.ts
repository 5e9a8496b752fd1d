import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { avoidedPrefillTokens } from "./prefix-cache";

describe("F-63 prefix caching", () => {
  it("TV-073: a 2,000-token system prompt shared by 100 requests avoids (100 − 1) × 2,000 = 198,000 token steps", () => {
    expect(avoidedPrefillTokens(100, 2000)).toBe(198_000);
  });

  it("one request saves nothing", () => {
    expect(avoidedPrefillTokens(1, 2000)).toBe(0);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => avoidedPrefillTokens(0, 10)).toThrow(PlanningInputError);
    expect(() => avoidedPrefillTokens(5, -1)).toThrow(/^prefixTokens/);
  });
});
