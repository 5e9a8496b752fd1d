import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { maxAdmissibleBacklog, screenByQueueDepth, screenDeadline, type DeadlineScreenInput } from "./admission";
import { PlanningInputError } from "./errors";

// TV-028 base: E2E allowance 50 ms, 6 ms elapsed, 4 ms outside-worker bound still to come.
const base = { endToEndAllowanceMs: 50, elapsedMs: 6, outsideWorkerBoundRemainingMs: 4 };
const fallback = { serviceBoundMs: 2, residentAndWarm: true, meetsQualityFloor: true };

function expectPlanningError(fn: () => unknown, parameter: string): void {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(PlanningInputError);
    expect((error as PlanningInputError).parameter).toBe(parameter);
    return;
  }
  throw new Error(`expected a PlanningInputError naming ${parameter}`);
}

describe("admission deadline screen (F-21, TV-028 synthetic vectors)", () => {
  it("TV-028 (a): allowance 50 − 6 − 4 − 5 = 35 ms; outstanding 3 + 6 × 5 = 33 ms ≤ 35 → ADMIT", () => {
    const r = screenDeadline({
      ...base,
      arrivingServiceBoundMs: 5,
      inServiceResidualBoundsMs: [3],
      queuedServiceBoundsMs: [5, 5, 5, 5, 5, 5],
    });
    expect(r).toMatchObject({
      decision: "admit",
      httpStatus: 200,
      waitingAllowanceMs: 35,
      outstandingWorkMs: 33,
      waitBoundMs: 33,
    });
  });
  it("TV-028 (b): seven queued → outstanding 3 + 35 = 38 ms > 35 → REJECT with 503", () => {
    const r = screenDeadline({
      ...base,
      arrivingServiceBoundMs: 5,
      inServiceResidualBoundsMs: [3],
      queuedServiceBoundsMs: new Array(7).fill(5),
    });
    expect(r).toMatchObject({
      decision: "reject",
      httpStatus: 503,
      reason: "backlog-exceeds-allowance",
      waitingAllowanceMs: 35,
      outstandingWorkMs: 38,
    });
  });
  it("TV-028 (c): (b) with a resident, warmed 2 ms fallback meeting the quality floor: 50 − 6 − 4 − 2 = 38 ≤ 38 → ADMIT via fallback", () => {
    const r = screenDeadline({
      ...base,
      arrivingServiceBoundMs: 5,
      inServiceResidualBoundsMs: [3],
      queuedServiceBoundsMs: new Array(7).fill(5),
      fallback,
    });
    expect(r).toMatchObject({
      decision: "admit-fallback",
      httpStatus: 200,
      reason: "fits-with-fallback",
      fallbackWaitingAllowanceMs: 38,
      outstandingWorkMs: 38,
    });
  });
  it("TV-028 (c) variants: a cold fallback, or one below the quality floor, is not used → REJECT", () => {
    const input = {
      ...base,
      arrivingServiceBoundMs: 5,
      inServiceResidualBoundsMs: [3],
      queuedServiceBoundsMs: new Array(7).fill(5),
    };
    expect(screenDeadline({ ...input, fallback: { ...fallback, residentAndWarm: false } }).decision).toBe("reject");
    expect(screenDeadline({ ...input, fallback: { ...fallback, meetsQualityFloor: false } }).decision).toBe("reject");
    // The fallback shortens only the new request's service: with 8 queued (43 ms ahead) even 38 ms is not enough.
    expect(screenDeadline({ ...input, queuedServiceBoundsMs: new Array(8).fill(5), fallback }).decision).toBe("reject");
  });
  it("TV-028 (d): 45 ms already elapsed on an idle worker: 50 − 45 − 4 − 5 = −4 < 0 → REJECT even though idle", () => {
    const r = screenDeadline({
      ...base,
      elapsedMs: 45,
      arrivingServiceBoundMs: 5,
      inServiceResidualBoundsMs: [],
      queuedServiceBoundsMs: [],
    });
    expect(r).toMatchObject({
      decision: "reject",
      httpStatus: 503,
      reason: "deadline-already-missed",
      waitingAllowanceMs: -4,
      outstandingWorkMs: 0,
    });
    // The 2 ms fallback would leave 50 − 45 − 4 − 2 = −1 < 0: still rejected.
    expect(
      screenDeadline({
        ...base,
        elapsedMs: 45,
        arrivingServiceBoundMs: 5,
        inServiceResidualBoundsMs: [],
        queuedServiceBoundsMs: [],
        fallback,
      }).decision,
    ).toBe("reject");
  });
  it("with one instance it is the chapter's rule verbatim: admit ⇔ allowance ≥ 0 and residual + Σ queued ≤ allowance", () => {
    const bound = fc.double({ min: 0, max: 20, noNaN: true });
    fc.assert(
      fc.property(
        fc.double({ min: 1, max: 200, noNaN: true }),
        fc.double({ min: 0, max: 100, noNaN: true }),
        bound,
        fc.double({ min: 0.1, max: 20, noNaN: true }),
        fc.array(bound, { maxLength: 1 }),
        fc.array(bound, { maxLength: 12 }),
        (e2e, elapsed, outside, service, inService, queued) => {
          const r = screenDeadline({
            endToEndAllowanceMs: e2e,
            elapsedMs: elapsed,
            outsideWorkerBoundRemainingMs: outside,
            arrivingServiceBoundMs: service,
            inServiceResidualBoundsMs: inService,
            queuedServiceBoundsMs: queued,
          });
          const allowance = e2e - elapsed - outside - service;
          const outstanding = [...inService, ...queued].reduce((a, b) => a + b, 0);
          const idle = inService.length + queued.length === 0;
          expect(r.decision === "admit").toBe(allowance >= 0 && (idle || outstanding <= allowance));
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** Brute force: run c FIFO instances with actual service times at or below their bounds; when does the new request start? */
function actualStart(inServiceActual: number[], queuedActual: number[], instances: number): number {
  const free = new Array<number>(instances).fill(0);
  inServiceActual.forEach((residual, i) => (free[i] = residual));
  for (const s of queuedActual) {
    const j = free.indexOf(Math.min(...free));
    free[j] = free[j]! + s;
  }
  return Math.min(...free);
}

describe("several instances sharing one FIFO queue", () => {
  it("the wait bound outstanding / c is never exceeded by any schedule whose service times respect the bounds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 20, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
          maxLength: 8,
        }),
        fc.array(fc.tuple(fc.double({ min: 0, max: 20, noNaN: true }), fc.double({ min: 0, max: 1, noNaN: true })), {
          maxLength: 30,
        }),
        (instances, busy, queued) => {
          const inService = busy.slice(0, instances);
          const input: DeadlineScreenInput = {
            endToEndAllowanceMs: 1000,
            elapsedMs: 0,
            outsideWorkerBoundRemainingMs: 0,
            arrivingServiceBoundMs: 1,
            inServiceResidualBoundsMs: inService.map(([b]) => b),
            queuedServiceBoundsMs: queued.map(([b]) => b),
            instances,
          };
          const r = screenDeadline(input);
          // Actual times are a fraction of each bound: the bound must hold for every such schedule.
          const start = actualStart(
            inService.map(([b, f]) => b * f),
            queued.map(([b, f]) => b * f),
            instances,
          );
          expect(start).toBeLessThanOrEqual(r.waitBoundMs + 1e-9);
        },
      ),
      { numRuns: 200 },
    );
  });
  it("fewer requests present than instances: the new one starts at once (wait bound 0)", () => {
    const r = screenDeadline({
      ...base,
      arrivingServiceBoundMs: 5,
      inServiceResidualBoundsMs: [30, 30],
      queuedServiceBoundsMs: [30],
      instances: 4,
    });
    expect(r.waitBoundMs).toBe(0);
    expect(r.decision).toBe("admit");
  });
  it("the dispatcher's count form: 4 instances, 5 ms bound, 35 ms allowance → up to 28 ahead (28 × 5 / 4 = 35)", () => {
    expect(maxAdmissibleBacklog({ ...base, serviceBoundMs: 5, instances: 4 })).toBe(28);
    expect(
      screenByQueueDepth({ ...base, serviceBoundMs: 5, queueDepth: 24, inService: 4, instances: 4 }).decision,
    ).toBe("admit");
    expect(
      screenByQueueDepth({ ...base, serviceBoundMs: 5, queueDepth: 25, inService: 4, instances: 4 }).decision,
    ).toBe("reject");
    // One instance: 35 / 5 = 7 ahead at most (TV-028 (a)/(b) with whole-bound residuals).
    expect(maxAdmissibleBacklog({ ...base, serviceBoundMs: 5, instances: 1 })).toBe(7);
    expect(maxAdmissibleBacklog({ ...base, elapsedMs: 45, serviceBoundMs: 5, instances: 1 })).toBe(-1);
  });
  it("a vanishing service bound: the closed form, without summing billions of bounds", () => {
    // Waiting allowance 50 − 6 − 4 − 1e-6 ms: (40 − 1e-6) / 1e-6 ≈ 4e7 ahead, far past the exact check's limit
    // (1e6), so floor((40 − 1e-6) · 1 / 1e-6) = 39,999,999 stands; 1e-320 overflows the quotient to Infinity.
    const n = maxAdmissibleBacklog({ ...base, serviceBoundMs: 1e-6, instances: 1 });
    expect(n).toBe(39_999_999);
    expect(maxAdmissibleBacklog({ ...base, serviceBoundMs: 1e-320, instances: 1 })).toBe(Infinity);
  });
  it("screenByQueueDepth admits exactly when the backlog is within maxAdmissibleBacklog", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 16 }),
        fc.integer({ min: 0, max: 16 }),
        fc.integer({ min: 0, max: 200 }),
        fc.double({ min: 0.1, max: 30, noNaN: true }),
        fc.double({ min: 0, max: 200, noNaN: true }),
        (instances, busyRaw, depth, s, e2e) => {
          const inService = Math.min(busyRaw, instances);
          const common = {
            endToEndAllowanceMs: e2e,
            elapsedMs: 0,
            outsideWorkerBoundRemainingMs: 0,
            serviceBoundMs: s,
            instances,
          };
          const admitted = screenByQueueDepth({ ...common, queueDepth: depth, inService }).decision === "admit";
          const cap = maxAdmissibleBacklog(common);
          expect(admitted).toBe(inService + depth <= cap);
        },
      ),
      // A near tie: 0.4 − s = 0.29999999999999993 < 3s, so the screen rejects 3 ahead; the cap once said 3 (a 1e-9 nudge).
      { numRuns: 200, examples: [[1, 1, 2, 0.10000000000000002, 0.4]] },
    );
  });
});

describe("bad input names the parameter", () => {
  it("negative bounds, more requests in service than instances, a zero service bound", () => {
    const ok = { ...base, arrivingServiceBoundMs: 5, inServiceResidualBoundsMs: [3], queuedServiceBoundsMs: [5] };
    expectPlanningError(() => screenDeadline({ ...ok, queuedServiceBoundsMs: [5, -1] }), "queuedServiceBoundsMs[1]");
    expectPlanningError(
      () => screenDeadline({ ...ok, inServiceResidualBoundsMs: [1, 2] }),
      "inServiceResidualBoundsMs",
    );
    expectPlanningError(() => screenDeadline({ ...ok, arrivingServiceBoundMs: 0 }), "arrivingServiceBoundMs");
    expectPlanningError(() => screenDeadline({ ...ok, elapsedMs: Number.NaN }), "elapsedMs");
    expectPlanningError(
      () => screenDeadline({ ...ok, fallback: { ...fallback, serviceBoundMs: -2 } }),
      "fallback.serviceBoundMs",
    );
    expectPlanningError(
      () => screenByQueueDepth({ ...base, serviceBoundMs: 5, queueDepth: 1.5, inService: 0, instances: 1 }),
      "queueDepth",
    );
    expectPlanningError(() => maxAdmissibleBacklog({ ...base, serviceBoundMs: 5, instances: 0 }), "instances");
  });
});
