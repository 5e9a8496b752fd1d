import { describe, expect, it } from "vitest";
import { HeadsUpGate, JSON_HEADS_UP_MAX_BYTES, jsonHeadsUpWorthIt } from "./heads-up-policy";

describe("heads-up policy", () => {
  it("gives a JSON body a heads-up only when its declared size is small", () => {
    expect(jsonHeadsUpWorthIt(200)).toBe(true);
    expect(jsonHeadsUpWorthIt(JSON_HEADS_UP_MAX_BYTES)).toBe(true);
    expect(jsonHeadsUpWorthIt(JSON_HEADS_UP_MAX_BYTES + 1)).toBe(false);
    // A tiny CNN's 3×32×32 input as JSON.
    expect(jsonHeadsUpWorthIt(60_466)).toBe(false);
    // Chunked: the size is unknown.
    expect(jsonHeadsUpWorthIt(Number.NaN)).toBe(false);
    expect(jsonHeadsUpWorthIt(-1)).toBe(false);
  });

  it("stays open through quick hand-offs and the odd slow one", () => {
    const gate = new HeadsUpGate();
    expect(gate.open).toBe(true);
    for (let i = 0; i < 200; i++) {
      // One slow hand-off in 20 (a busy moment on an otherwise idle host).
      gate.record(i % 20 === 0 ? 1.5 : 0.03);
      expect(gate.open).toBe(true);
    }
  });

  it("closes while most hand-offs are slow and opens again after a run of quick ones", () => {
    const gate = new HeadsUpGate();
    let closedAfter = -1;
    for (let i = 0; i < 50 && closedAfter < 0; i++) {
      gate.record(0.6);
      if (!gate.open) closedAfter = i + 1;
    }
    // A share of a quarter, each new hand-off weighing 1/16: the fifth slow one in a row.
    expect(closedAfter).toBe(5);
    for (let i = 0; i < 100; i++) gate.record(0.5);
    expect(gate.open).toBe(false);
    // Sustained contention with heads-ups off still reads slow; quick ones bring them back.
    let openedAfter = -1;
    for (let i = 0; i < 100 && openedAfter < 0; i++) {
      gate.record(0.05);
      if (gate.open) openedAfter = i + 1;
    }
    expect(openedAfter).toBeGreaterThan(15);
    expect(openedAfter).toBeLessThan(30);
  });

  it("ignores a hand-off it could not time", () => {
    const gate = new HeadsUpGate();
    for (let i = 0; i < 10; i++) gate.record(1);
    expect(gate.open).toBe(false);
    for (let i = 0; i < 100; i++) gate.record(undefined);
    gate.record(Number.NaN);
    expect(gate.open).toBe(false);
  });
});
