// The open-loop runner on virtual time (FakeClock) against simulated servers, so every count and latency can be
// worked out by hand.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FakeClock } from "./clock";
import { runOpenLoop } from "./open-loop";
import type { SendOutcome } from "./outcome";
import { buildSchedule } from "./schedule";

const OK: SendOutcome = { kind: "ok", status: 200 };
const constant = (rate: number, durationMs: number) =>
  buildSchedule({ kind: "constant", rate }, { durationMs, seed: 1, maxRequests: 100_000 });

/** A server that serves every request at once, each taking `serviceMs`. */
function parallelServer(clock: FakeClock, serviceMs: number) {
  return () => clock.sleepUntil(clock.now() + serviceMs).then(() => OK);
}

/** A server that serves one request at a time, in arrival order, each taking `serviceMs`. */
function fifoServer(clock: FakeClock, serviceMs: number) {
  let freeAt = 0;
  return () => {
    freeAt = Math.max(clock.now(), freeAt) + serviceMs;
    return clock.sleepUntil(freeAt).then(() => OK);
  };
}

describe("runOpenLoop", () => {
  it("constant 100/s for 3 s: 300 requests, each sent exactly at its intended time k·10 ms", async () => {
    const clock = new FakeClock();
    const result = await clock.run(
      runOpenLoop({
        schedule: constant(100, 3000),
        send: parallelServer(clock, 2),
        maxInFlight: 100,
        warmupMs: 0,
        clock,
        keepRecords: true,
      }),
    );
    expect(result.measured).toMatchObject({ intended: 300, sent: 300, ok: 300, dropped: 0 });
    result.records!.forEach((r, k) => expect([r.intendedMs, r.sentMs, r.doneMs]).toEqual([10 * k, 10 * k, 10 * k + 2]));
    // Every latency is the 2 ms service time; throughput = 300 ok / 3 s.
    expect(result.latency.p99Ms).toBe(2);
    expect(result.okPerS).toBe(100);
    expect(result.timeline.map((s) => s.ok)).toEqual([100, 100, 100]);
  });

  it("latency from the intended time grows behind a slow one-at-a-time server: request k waits 10k + 20 ms", async () => {
    // Arrivals every T = 10 ms, service S = 20 ms, one at a time: request k starts at 20k (the server is the
    // bottleneck), ends at 20(k + 1), and was intended at 10k → latency 20(k + 1) − 10k = 10k + 20 ms.
    const clock = new FakeClock();
    const result = await clock.run(
      runOpenLoop({
        schedule: constant(100, 1000),
        send: fifoServer(clock, 20),
        maxInFlight: 1000,
        warmupMs: 0,
        clock,
        keepRecords: true,
      }),
    );
    result.records!.forEach((r, k) => expect(r.doneMs! - r.intendedMs).toBe(10 * k + 20));
    expect(result.latency.maxMs).toBeCloseTo(10 * 99 + 20, 0); // 1010 ms, within the histogram's 0.1%
    expect(result.latency.p50Ms).toBeCloseTo(10 * 49 + 20, 0); // the 50th of 100: k = 49 → 510 ms
  });

  it("the in-flight cap drops and counts: cap 2, service 25 ms, arrivals every 10 ms → the arrival at 20 + 30j ms is dropped", async () => {
    // t=0 sent (busy to 25), t=10 sent (to 35), t=20: 2 in flight → drop; t=30: the first ended at 25 → sent (to 55);
    // t=40 sent (to 65); t=50 drop; … every 30 ms two go and one is dropped. In 1 s: t = 20, 50, …, 980 → 33 drops.
    const clock = new FakeClock();
    const result = await clock.run(
      runOpenLoop({
        schedule: constant(100, 1000),
        send: parallelServer(clock, 25),
        maxInFlight: 2,
        warmupMs: 0,
        clock,
        keepRecords: true,
      }),
    );
    expect(result.measured).toMatchObject({ intended: 100, sent: 67, dropped: 33, ok: 67 });
    const dropped = result.records!.filter((r) => r.outcome === "dropped").map((r) => r.intendedMs);
    expect(dropped).toEqual(Array.from({ length: 33 }, (_, j) => 20 + 30 * j));
  });

  it("property: drops match a brute-force simulation of the cap for any rate, service time and cap", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 10, max: 400 }),
        fc.integer({ min: 1, max: 80 }),
        fc.integer({ min: 1, max: 6 }),
        async (rate, service, cap) => {
          const schedule = constant(rate, 500);
          // Never ends exactly at an arrival (a tie the oracle and the runner may order differently): arrivals are at
          // 1000k / rate ms, and 1000k / rate = s + 0.3 would need 10000k = rate·(10s + 3); 10s + 3 is prime to 10, so it
          // divides k and rate ≥ 10000. (s + 0.5 did tie: rate 400, s = 7, arrival k = 3 at 7.5 ms.)
          const serviceMs = service + 0.3;
          // Oracle: at each arrival, requests whose end ≤ now have left; send if fewer than cap remain.
          let ends: number[] = [];
          let drops = 0;
          for (const t of schedule.offsetsMs) {
            ends = ends.filter((e) => e > t);
            if (ends.length >= cap) drops++;
            else ends.push(t + serviceMs);
          }
          const clock = new FakeClock();
          const result = await clock.run(
            runOpenLoop({ schedule, send: parallelServer(clock, serviceMs), maxInFlight: cap, warmupMs: 0, clock }),
          );
          return result.measured.dropped === drops && result.measured.sent === schedule.offsetsMs.length - drops;
        },
      ),
      { numRuns: 40, examples: [[400, 7, 1]] },
    ); // the case that tied at s + 0.5
  });

  it("leaves the warm-up window out of the statistics but counts it apart", async () => {
    const clock = new FakeClock();
    const result = await clock.run(
      runOpenLoop({
        schedule: constant(100, 2000),
        send: parallelServer(clock, 3),
        maxInFlight: 10,
        warmupMs: 500,
        clock,
      }),
    );
    expect(result.warmup).toMatchObject({ intended: 50, ok: 50 });
    expect(result.measured).toMatchObject({ intended: 150, ok: 150 });
    expect(result.latency.count).toBe(150);
    expect(result.windowMs).toBe(1500);
    expect(result.okPerS).toBe(100); // 150 over the 1.5 s window
    expect(result.timeline.map((s) => s.warmup)).toEqual([true, false]);
  });

  it("counts HTTP errors by status apart from transport errors by kind, and a throwing sender as a transport error", async () => {
    const clock = new FakeClock();
    const send = async (i: number): Promise<SendOutcome> => {
      await clock.sleepUntil(clock.now() + 1);
      if (i % 10 === 1) return { kind: "http_error", status: 503, detail: "queue full" };
      if (i % 10 === 2) return { kind: "transport_error", transport: "refused", detail: "ECONNREFUSED" };
      if (i % 10 === 3) return { kind: "transport_error", transport: "reset", detail: "ECONNRESET" };
      if (i % 10 === 4) return { kind: "transport_error", transport: "timed_out", detail: "no response" };
      if (i % 10 === 5) throw new Error("bug");
      if (i % 10 === 6) return { kind: "bad_response", status: 200, detail: "no outputs" };
      return OK;
    };
    const result = await clock.run(
      runOpenLoop({ schedule: constant(100, 1000), send, maxInFlight: 10, warmupMs: 0, clock }),
    );
    // 100 requests, indices 0…99: each residue mod 10 occurs 10 times.
    expect(result.measured.httpErrors).toEqual({ 503: 10 });
    expect(result.measured.transportErrors).toEqual({ refused: 10, reset: 10, timed_out: 10, other: 10 });
    expect(result.measured.badResponses).toBe(10);
    expect(result.measured.ok).toBe(40);
    expect(result.latency.count).toBe(40); // percentiles are over successes only; the rest is counted
    expect(result.errorSamples.some((s) => s.includes("sender threw: bug"))).toBe(true);
    expect(result.timeline[0]).toMatchObject({ intended: 100, ok: 40, errors: 60 });
  });

  it("stops scheduling when aborted, finishes what is in flight, and reports what was never reached", async () => {
    const clock = new FakeClock();
    const controller = new AbortController();
    const send = (i: number) => {
      if (i === 49) controller.abort();
      return parallelServer(clock, 5)();
    };
    const result = await clock.run(
      runOpenLoop({
        schedule: constant(100, 1000),
        send,
        maxInFlight: 10,
        warmupMs: 0,
        clock,
        signal: controller.signal,
      }),
    );
    expect(result.measured.ok).toBe(50);
    expect(result.notReached).toBe(50);
  });

  it("rejects a warm-up longer than the run and a cap below 1", async () => {
    await expect(
      runOpenLoop({ schedule: constant(10, 1000), send: async () => OK, maxInFlight: 0, warmupMs: 0 }),
    ).rejects.toMatchObject({ parameter: "maxInFlight" });
    await expect(
      runOpenLoop({ schedule: constant(10, 1000), send: async () => OK, maxInFlight: 1, warmupMs: 2000 }),
    ).rejects.toMatchObject({ parameter: "warmupMs" });
  });
});
