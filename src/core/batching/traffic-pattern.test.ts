import { describe, expect, it } from "vitest";
import { PlanningInputError } from "../planning/errors";
import { SCENARIO_STRATEGIES, classifyTraffic } from "./traffic-pattern";

/** mulberry32: a small seeded generator so the synthetic traces are the same on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function poissonArrivals(ratePerS: number, n: number, seed: number): number[] {
  const u = rng(seed);
  const out: number[] = [];
  let t = 0;
  for (let i = 0; i < n; i++) {
    t += (-Math.log(1 - u()) / ratePerS) * 1000; // exponential gaps, ms
    out.push(t);
  }
  return out;
}

describe("§13.5.5 / Table 12: traffic pattern from arrival timestamps", () => {
  it("Server: Poisson arrivals at 500/s have inter-arrival CV ≈ 1 → dynamic batching with timeout", () => {
    const c = classifyTraffic(poissonArrivals(500, 2000, 7));
    expect(c.scenario).toBe("Server");
    expect(Math.abs(c.interArrivalCv - 1)).toBeLessThan(0.1);
    expect(Math.abs(c.meanInterArrivalMs - 2)).toBeLessThan(0.2); // 1000 / 500
    expect(c.bursty).toBe(false);
    expect(c.lowSample).toBe(false);
    expect(c.recommendation.strategy).toBe("dynamic batching with timeout");
  });

  it("TV-046: 6 synchronized cameras at 30 Hz → MultiStream ('streaming'), batch 6, deadline = frame period 33.3 ms", () => {
    const u = rng(11);
    const arrivals: number[] = [];
    for (let frame = 0; frame < 60; frame++) {
      const start = (frame * 1000) / 30;
      const jitter = Array.from({ length: 6 }, () => u() * 1.5).sort((a, b) => a - b); // ≤ 1.5 ms of jitter
      for (const j of jitter) arrivals.push(start + j);
    }
    const c = classifyTraffic(arrivals);
    expect(c.scenario).toBe("MultiStream");
    expect(c.groupSize).toBe(6);
    expect(c.periodMs!.toFixed(1)).toBe("33.3");
    expect(c.interArrivalCv).toBeGreaterThan(1.5); // five short gaps, one long: CV alone would call it bursty
    expect(c.recommendation).toBe(SCENARIO_STRATEGIES.MultiStream);
  });

  it("SingleStream: one request every 100 ms ± 5 ms → CV ≈ 0.03 → no batching (B = 1)", () => {
    const u = rng(3);
    const arrivals = Array.from({ length: 200 }, (_, i) => i * 100 + (u() - 0.5) * 10);
    const c = classifyTraffic(arrivals);
    expect(c.scenario).toBe("SingleStream");
    expect(c.interArrivalCv).toBeLessThan(0.5);
    expect(c.recommendation.strategy).toBe("no batching (B = 1)");
  });

  it("Offline: everything staged at once → maximum batch size", () => {
    const c = classifyTraffic([5, 5, 5, 5]);
    expect(c.scenario).toBe("Offline");
    expect(c.lowSample).toBe(true); // 3 gaps < 30
  });

  it("bursty Server traffic: Poisson bursts of random size at random times → CV > 1.5, flagged bursty", () => {
    const u = rng(5);
    const arrivals: number[] = [];
    let t = 0;
    for (let burst = 0; burst < 150; burst++) {
      t += -Math.log(1 - u()) * 200; // bursts every 200 ms on average
      const size = 1 + Math.floor(u() * 20);
      for (let i = 0; i < size; i++) arrivals.push(t + i * 0.1);
    }
    const c = classifyTraffic(arrivals.sort((a, b) => a - b)); // a burst can overlap the next one
    expect(c.scenario).toBe("Server");
    expect(c.bursty).toBe(true);
  });

  it("bad input: typed errors naming the parameter", () => {
    expect(() => classifyTraffic([1, 2])).toThrow(PlanningInputError);
    expect(() => classifyTraffic([1, 3, 2])).toThrow(/^arrivalsMs\[2\]/);
    expect(() => classifyTraffic([1, 2, Number.POSITIVE_INFINITY])).toThrow(/^arrivalsMs\[2\]/);
  });
});
