// Closed loop on virtual time against a simulated one-at-a-time server: throughput is the server's capacity
// whatever the concurrency, and latency grows with it (Little's law: L = λ·W).
import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock";
import { powersOfTwoUpTo, runClosedLoop, sweepConcurrency } from "./closed-loop";
import type { SendOutcome } from "./outcome";

function fifoServer(clock: FakeClock, serviceMs: number) {
  let freeAt = 0;
  return (): Promise<SendOutcome> => {
    freeAt = Math.max(clock.now(), freeAt) + serviceMs;
    return clock.sleepUntil(freeAt).then(() => ({ kind: "ok", status: 200 }));
  };
}

describe("runClosedLoop", () => {
  it("concurrency 1 against a 20 ms server: back-to-back requests, 1000/20 = 50/s, each 20 ms", async () => {
    const clock = new FakeClock();
    const result = await clock.run(
      runClosedLoop({
        concurrency: 1,
        send: fifoServer(clock, 20),
        durationMs: 1000,
        maxRequests: 1000,
        warmupMs: 0,
        clock,
        keepRecords: true,
      }),
    );
    expect(result.measured.ok).toBe(50);
    expect(result.okPerS).toBe(50);
    expect(result.latency.p99Ms).toBeCloseTo(20, 1); // HDR: within 3 digits (20 ms reads 20.015)
    result.records!.forEach((r, k) => expect(r.sentMs).toBe(20 * k)); // the next leaves when the last answered
  });

  it("a sweep 1, 2, 4: throughput stays at the capacity (50/s), latency = concurrency × 20 ms (Little: W = L/λ)", async () => {
    const { rows } = await sweepConcurrency(powersOfTwoUpTo(4), (concurrency) => {
      const clock = new FakeClock();
      return clock.run(
        runClosedLoop({
          concurrency,
          send: fifoServer(clock, 20),
          durationMs: 2000,
          maxRequests: 10_000,
          warmupMs: 400,
          clock,
        }),
      );
    });
    expect(rows.map((r) => r.concurrency)).toEqual([1, 2, 4]);
    for (const row of rows) {
      expect(row.okPerS).toBeGreaterThan(48);
      expect(row.okPerS).toBeLessThan(52);
      expect(row.p50Ms / (20 * row.concurrency)).toBeCloseTo(1, 2);
    }
  });

  it("stops at maxRequests", async () => {
    const clock = new FakeClock();
    const result = await clock.run(
      runClosedLoop({
        concurrency: 3,
        send: fifoServer(clock, 1),
        durationMs: 60_000,
        maxRequests: 10,
        warmupMs: 0,
        clock,
      }),
    );
    expect(result.measured.sent).toBe(10);
    expect(result.durationMs).toBe(10);
  });

  it("powersOfTwoUpTo: 1, 2, 4, 8 and the maximum itself", () => {
    expect(powersOfTwoUpTo(8)).toEqual([1, 2, 4, 8]);
    expect(powersOfTwoUpTo(6)).toEqual([1, 2, 4, 6]);
    expect(powersOfTwoUpTo(1)).toEqual([1]);
    expect(() => powersOfTwoUpTo(0)).toThrow(expect.objectContaining({ parameter: "max" }));
  });
});
