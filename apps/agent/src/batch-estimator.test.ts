import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BatchEstimator, REPORTED_DECISIONS } from "./batch-estimator";

describe("BatchEstimator (the agent's runner of the core estimator)", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval", "setTimeout", "clearTimeout", "performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  // A queue of 20 rows at B = 1 with batches waiting (queueing-delay trigger: delay ≥ 1 × a 0 ms timeout).
  function running(minDwellMs: number) {
    const estimator = new BatchEstimator(
      { reconfigurationTimeoutMs: 100, sampleIntervalMs: 5, minDwellMs },
      { queueDepth: () => 20, currentB: () => 1, batchTimeoutMs: () => 0 },
    );
    estimator.start();
    const feed = setInterval(
      () =>
        estimator.onBatch({
          rows: 1,
          requests: 1,
          timedOut: false,
          formationMsMean: 0,
          queueDelayMsMean: 2,
          computeMs: 1,
          ok: true,
        }),
      10,
    );
    return {
      estimator,
      stop: () => {
        clearInterval(feed);
        estimator.stop();
      },
    };
  }

  it("each report takes the decisions made since the previous one: 10 decisions in 1 s, then none, then 3 in the next 0.3 s", () => {
    const { estimator, stop } = running(60_000);
    vi.advanceTimersByTime(1000);
    expect(estimator.takeNewDecisions()).toHaveLength(10);
    expect(estimator.takeNewDecisions()).toHaveLength(0);
    vi.advanceTimersByTime(300);
    const next = estimator.takeNewDecisions();
    expect(next).toHaveLength(3);
    // In time order, the newest last.
    expect(next.map((d) => d.tMs)).toEqual([...next.map((d) => d.tMs)].sort((a, b) => a - b));
    stop();
  });

  it("a report carries at most the newest REPORTED_DECISIONS (120), even after 200 decisions unreported", () => {
    const { estimator, stop } = running(60_000);
    vi.advanceTimersByTime(200 * 100);
    const taken = estimator.takeNewDecisions();
    expect(taken).toHaveLength(REPORTED_DECISIONS);
    expect(taken.at(-1)).toEqual(estimator.timeline.at(-1));
    stop();
  });

  it("a proposal carries the timeline up to the decision that proposed it", () => {
    // Depth 20 → Q̃ = 20 → B̂ = 16 from the first interval; no dwell: proposed at the first decision whose mode is 16.
    const { estimator, stop } = running(0);
    vi.advanceTimersByTime(500);
    const proposal = estimator.proposal!;
    expect(proposal.batchSize).toBe(16);
    expect(proposal.decision).toMatchObject({ outcome: "proposed", proposed: 16, current: 1 });
    expect(proposal.timeline.at(-1)).toEqual(proposal.decision);
    expect(proposal.timeline.length).toBeLessThanOrEqual(REPORTED_DECISIONS);
    stop();
  });
});
