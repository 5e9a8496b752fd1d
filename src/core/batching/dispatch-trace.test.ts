import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { traceDualTriggerDispatch } from "./dispatch-trace";
import { RESNET50_REPRODUCING as R } from "./resnet50-reference";
import { serviceTimeMs } from "./service-time";

describe("F-34 dual-trigger dispatch trace", () => {
  const example = traceDualTriggerDispatch({
    arrivalsMs: [0, 2, 5, 9],
    windowMs: 12,
    maxBatch: 32,
    model: R,
    workerAvailableAtMs: 18,
    remainingPathMs: 4,
    deadlineMs: 50,
  });

  it("Example 13.4 dispatch trace: 25.6 ms, slack 24.4 ms", () => {
    // Eligible at 0 + 12 (timer on the oldest; 4 < 32 so the count never fires); worker free at 18 → 6 ms resource
    // wait; T(4) = 3.49528 + 4 × 0.0328947 = 3.627 ms; completion 18 + 3.627 + 4 = 25.627; slack 50 − 25.627 = 24.373.
    expect(example.batches).toHaveLength(1);
    const b = example.batches[0]!;
    expect(b.trigger).toBe("timer");
    expect(b.eligibleMs).toBe(12);
    expect(b.resourceWaitMs).toBe(6);
    expect(b.dispatchMs).toBe(18);
    expect(b.size).toBe(4);
    expect(b.serviceMs.toFixed(3)).toBe("3.627");
    expect(b.serviceMs.toFixed(1)).toBe("3.6");
    const oldest = example.requests[0]!;
    expect(oldest.latencyMs.toFixed(2)).toBe("25.63");
    expect(oldest.latencyMs.toFixed(1)).toBe("25.6");
    expect(oldest.slackMs!.toFixed(2)).toBe("24.37");
    expect(oldest.slackMs!.toFixed(1)).toBe("24.4");
    expect(oldest.formationWaitMs).toBe(12);
    expect(oldest.resourceWaitMs).toBe(6);
  });

  it("Example 13.4: later arrivals have more slack; the request at 9 ms completes 16.63 ms after arrival", () => {
    const last = example.requests[3]!;
    expect(last.latencyMs.toFixed(2)).toBe("16.63");
    const slacks = example.requests.map((r) => r.slackMs!);
    expect([...slacks].sort((a, b) => a - b)).toEqual(slacks);
  });

  it("TV-043: arrivals 100 ms apart, 20 ms window, cap 32, idle worker → each waits the full 20 ms at batch 1", () => {
    const t = traceDualTriggerDispatch({ arrivalsMs: [0, 100, 200, 300], windowMs: 20, maxBatch: 32, model: R });
    expect(t.batches.map((b) => b.size)).toEqual([1, 1, 1, 1]);
    expect(t.requests.map((r) => r.formationWaitMs)).toEqual([20, 20, 20, 20]);
    // 20 ms of a 50 ms budget is 40% burned with no amortization; nothing is dropped.
    expect(20 / 50).toBe(0.4);
    expect(t.requests).toHaveLength(4);
  });

  it("the count trigger fires at the B_max-th arrival, before the timer", () => {
    const t = traceDualTriggerDispatch({ arrivalsMs: [0, 1, 2, 3, 4], windowMs: 10, maxBatch: 3, model: R });
    expect(t.batches[0]).toMatchObject({ trigger: "max-batch", eligibleMs: 2, dispatchMs: 2, size: 3 });
    // The rest (3 and 4) wait for the timer at 3 + 10 = 13; the worker is free again at 2 + T(3).
    expect(t.batches[1]).toMatchObject({ trigger: "timer", eligibleMs: 13, size: 2 });
  });

  it("arrivals during a resource wait join the batch at dispatch, or not when sealed at eligibility", () => {
    const base = { arrivalsMs: [0, 2, 15], windowMs: 10, maxBatch: 8, model: R, workerAvailableAtMs: 20 };
    expect(traceDualTriggerDispatch(base).batches.map((b) => b.size)).toEqual([3]);
    const sealed = traceDualTriggerDispatch({ ...base, seal: "at-eligibility" });
    expect(sealed.batches.map((b) => b.size)).toEqual([2, 1]);
    // The joiner at 15 is ready at once (formation 0) and waits 5 ms for the worker.
    const joiner = traceDualTriggerDispatch(base).requests[2]!;
    expect(joiner.formationWaitMs).toBe(0);
    expect(joiner.resourceWaitMs).toBe(5);
  });

  it("property: batches never exceed B_max, formation wait never exceeds T_w, a worker runs one batch at a time", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 50, noNaN: true }), { minLength: 1, maxLength: 60 }),
        fc.double({ min: 0, max: 20, noNaN: true }),
        fc.integer({ min: 1, max: 16 }),
        fc.array(fc.double({ min: 0, max: 30, noNaN: true }), { minLength: 1, maxLength: 3 }),
        (gaps, windowMs, maxBatch, workers) => {
          const arrivalsMs: number[] = [];
          gaps.reduce((t, g) => (arrivalsMs.push(t + g), t + g), 0);
          const t = traceDualTriggerDispatch({
            arrivalsMs,
            windowMs,
            maxBatch,
            model: R,
            workerAvailableAtMs: workers,
          });
          expect(t.requests).toHaveLength(arrivalsMs.length);
          expect(t.batches.reduce((a, b) => a + b.size, 0)).toBe(arrivalsMs.length);
          const busyUntil = [...workers];
          for (const b of t.batches) {
            expect(b.size).toBeGreaterThanOrEqual(1);
            expect(b.size).toBeLessThanOrEqual(maxBatch);
            expect(b.dispatchMs).toBeGreaterThanOrEqual(busyUntil[b.worker]! - 1e-9);
            busyUntil[b.worker] = b.dispatchMs + serviceTimeMs(R, b.size);
          }
          for (const r of t.requests) {
            expect(r.formationWaitMs).toBeLessThanOrEqual(windowMs + 1e-9);
            expect(r.resourceWaitMs).toBeGreaterThanOrEqual(-1e-9);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("bad input: typed errors naming the parameter", () => {
    const ok = { arrivalsMs: [0, 1], windowMs: 5, maxBatch: 4, model: R };
    expect(() => traceDualTriggerDispatch({ ...ok, arrivalsMs: [0, 3, 2] })).toThrow(PlanningInputError);
    expect(() => traceDualTriggerDispatch({ ...ok, arrivalsMs: [0, 3, 2] })).toThrow(/^arrivalsMs\[2\]/);
    expect(() => traceDualTriggerDispatch({ ...ok, maxBatch: 0 })).toThrow(/^maxBatch/);
    expect(() => traceDualTriggerDispatch({ ...ok, workerAvailableAtMs: [] })).toThrow(/^workerAvailableAtMs/);
    expect(() => traceDualTriggerDispatch({ ...ok, deadlineMs: 0 })).toThrow(/^deadlineMs/);
    expect(() => traceDualTriggerDispatch({ ...ok, arrivalsMs: [0, Number.NaN] })).toThrow(/^arrivalsMs\[1\]/);
  });

  it("no arrivals: an empty trace", () => {
    expect(traceDualTriggerDispatch({ arrivalsMs: [], windowMs: 5, maxBatch: 4, model: R })).toEqual({
      batches: [],
      requests: [],
    });
    expect(serviceTimeMs(R, 4)).toBeGreaterThan(0);
  });
});
