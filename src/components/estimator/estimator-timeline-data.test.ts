import { describe, expect, it } from "vitest";
import { latestOutcomeText, timeTicks, timelinePoints, type TimelineDecision } from "./estimator-timeline-data";

const decision = (tMs: number, over: Partial<TimelineDecision> = {}): TimelineDecision => ({
  tMs,
  samples: 40,
  qHat: 3,
  qTilde: 2.5,
  estimate: 2,
  stable: 1,
  current: 1,
  triggers: { holds: false, batchTimeouts: false, queueDelay: false, timeoutShare: 0, meanQueueDelayMs: null },
  dwellRemainingMs: 0,
  proposed: null,
  outcome: "stable-equals-current",
  ...over,
});

describe("estimator timeline series", () => {
  it("time runs in seconds up to the newest decision (0), sorted: decisions at 1000, 1200, 1400 ms → −0.4, −0.2, 0 s", () => {
    const points = timelinePoints([decision(1400), decision(1000), decision(1200)]);
    expect(points.map((p) => p.t)).toEqual([-0.4, -0.2, 0]);
  });

  it("marks triggers at y = 0 and carries the proposed B", () => {
    const [p] = timelinePoints([
      decision(0, {
        triggers: { holds: true, batchTimeouts: false, queueDelay: true, timeoutShare: 0, meanQueueDelayMs: 3 },
        proposed: 16,
        outcome: "proposed",
      }),
    ]);
    expect(p).toMatchObject({ trigger: 0, proposed: 16 });
    expect(timelinePoints([decision(0)])[0]!.trigger).toBeNull();
  });

  it("rounds Q̂ and Q̃ for the tooltip (2.123456 → 2.123) and keeps nulls", () => {
    const [p] = timelinePoints([decision(0, { qHat: 2.123456, qTilde: null })]);
    expect(p!.qHat).toBe(2.123);
    expect(p!.qTilde).toBeNull();
  });

  it("says what the newest decision concluded", () => {
    expect(latestOutcomeText([])).toBeNull();
    expect(
      latestOutcomeText([decision(0), decision(200, { outcome: "dwell", stable: 8, dwellRemainingMs: 1500 })]),
    ).toBe("B̃ = 8 would be proposed; the dwell time holds it back 1.5 s more");
    expect(latestOutcomeText([decision(0, { outcome: "proposed", proposed: 16 })])).toBe(
      "proposed B = 16 (running B = 1)",
    );
  });

  it("axis ticks in whole seconds: 38.4 s of history → every 10 s [−30, −20, −10, 0]; 59.7 s → every 10 s from −50; 3 s → every 1 s", () => {
    expect(timeTicks(-38.4)).toEqual([-30, -20, -10, 0]);
    expect(timeTicks(-59.72)).toEqual([-50, -40, -30, -20, -10, 0]);
    expect(timeTicks(-3)).toEqual([-3, -2, -1, 0]);
    expect(timeTicks(0)).toEqual([0]);
    // At most 7 ticks whatever the span (24 h of history: every 600 s would be 144, so the step grows).
    expect(timeTicks(-86_400).length).toBeLessThanOrEqual(7);
  });
});
