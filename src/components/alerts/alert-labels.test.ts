import { describe, expect, it } from "vitest";
import { heldFor, ruleLabel } from "./alert-labels";

describe("alert labels", () => {
  it("names every rule the evaluator emits, and falls back to spaced words", () => {
    expect(ruleLabel("agent_offline")).toBe("Agent offline");
    expect(ruleLabel("some_new_rule")).toBe("some new rule");
  });

  it("held for: 45 s, 3 min (180 s), 2 h 5 min (7500 s), 1 h (3600 s); never negative", () => {
    const t0 = new Date("2026-11-29T10:00:00Z");
    const after = (s: number) => new Date(t0.getTime() + s * 1000);
    expect([45, 180, 7500, 3600].map((s) => heldFor(t0, after(s)))).toEqual(["45 s", "3 min", "2 h 5 min", "1 h"]);
    expect(heldFor(after(10), t0)).toBe("0 s");
  });
});
