// The load generator against test servers of known behaviour (real HTTP on loopback). Assertions are about what
// was sent, counted and measured, never about how long the test took.
import { afterEach, describe, expect, it } from "vitest";
import { runClosedLoop } from "./closed-loop";
import { searchMaxRate } from "./max-rate-search";
import { encodeInferRequest } from "./oip-body";
import { OipClient } from "./oip-client";
import { generateInputs } from "./oip-inputs";
import { runOpenLoop } from "./open-loop";
import { buildSchedule } from "./schedule";
import { freePort } from "../../agent/src/test-agent-process";
import { startFixedCapacityServer, startSleepingServer, startTestServer, type TestServer } from "./test-servers";

const servers: TestServer[] = [];
const clients: OipClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function clientFor(server: TestServer | string, options: { timeoutMs?: number; maxSockets?: number } = {}) {
  if (typeof server !== "string") servers.push(server);
  const client = new OipClient({
    url: new URL(typeof server === "string" ? server : server.url),
    model: "test",
    timeoutMs: options.timeoutMs ?? 10_000,
    maxSockets: options.maxSockets ?? 256,
  });
  clients.push(client);
  const body = encodeInferRequest(
    generateInputs([{ name: "x", datatype: "FP32", shape: [-1, 4] }], { batch: 1, seed: 1 }),
    { binary: false },
  );
  return { client, send: () => client.send(body) };
}

const constant = (rate: number, durationMs: number) =>
  buildSchedule({ kind: "constant", rate }, { durationMs, seed: 1, maxRequests: 100_000 });

describe("against a deliberately slow target", () => {
  it("latency from the intended send time grows, as it must: 100/s into a 20 ms one-at-a-time server", async () => {
    // Request k is intended at 10k ms and cannot end before 20(k + 1) ms (the server is serial), so its latency is
    // at least 10k + 20 ms: it grows by ≥ 10 ms per request. A closed-loop client would have seen a flat 20 ms.
    const { send } = await clientFor(await startSleepingServer(20, true));
    const result = await runOpenLoop({
      schedule: constant(100, 1000),
      send,
      maxInFlight: 1000,
      warmupMs: 0,
      keepRecords: true,
    });
    expect(result.measured).toMatchObject({ intended: 100, ok: 100, dropped: 0 });
    // The server finishes one request per 20 ms whatever order requests reach it in (a busy client may send several
    // at once on parallel sockets), so the i-th completion is at ≥ 20(i + 1) ms: sorted, they bound the latencies.
    const done = result.records!.map((r) => r.doneMs!).sort((a, b) => a - b);
    done.forEach((doneMs, i) => expect(doneMs).toBeGreaterThanOrEqual(20 * (i + 1) - 1)); // −1 ms: timer granularity
    // The last completion (≥ 2000 ms) belongs to a request intended by 990 ms: latency ≥ 1009 ms, where a closed loop
    // would have reported 20 ms for every request.
    expect(result.latency.maxMs).toBeGreaterThanOrEqual(1009);
    const latencies = result.records!.map((r) => r.doneMs! - r.intendedMs);
    expect(latencies.reduce((a, b) => a + b, 0) / latencies.length).toBeGreaterThanOrEqual(2000 / 2 - 990 / 2 - 1);
  });

  it("the closed loop on the same server sees a flat service time: coordinated omission, for contrast", async () => {
    const { send } = await clientFor(await startSleepingServer(20, true));
    const result = await runClosedLoop({ concurrency: 1, send, durationMs: 60_000, maxRequests: 20, warmupMs: 0 });
    expect(result.measured.ok).toBe(20);
    expect(result.latency.p50Ms).toBeGreaterThanOrEqual(19);
    // Each request waited only for itself: even the slowest stays below what the open loop's median must reach
    // (10·49 + 20 = 510 ms above), although the server is the same.
    expect(result.latency.p99Ms).toBeLessThan(10 * 49 + 20);
  });

  it("the in-flight cap counts its drops: cap 2, 50 ms each, 100/s → the server never holds more than 2, and sent + dropped = due", async () => {
    const server = await startSleepingServer(50, false);
    const { send } = await clientFor(server, { maxSockets: 2 });
    const result = await runOpenLoop({
      schedule: constant(100, 1000),
      send,
      maxInFlight: 2,
      warmupMs: 0,
      keepRecords: true,
    });
    const m = result.measured;
    // At most 2 per 50 ms can be outstanding, so of 100 arrivals about 40 go and 60 are dropped.
    expect(m.intended).toBe(100);
    expect(m.dropped).toBeGreaterThan(40);
    expect(m.sent + m.dropped).toBe(100);
    expect(server.stats.received).toBe(m.sent);
    expect(server.stats.maxConcurrent).toBeLessThanOrEqual(2);
    expect(result.records!.filter((r) => r.outcome === "dropped")).toHaveLength(m.dropped);
    expect(result.timeline.reduce((s, t) => s + t.dropped, 0)).toBe(m.dropped);
  });
});

describe("max-rate search", () => {
  it("finds a rate within 20% of a server whose capacity is known: one at a time, 5 ms each → 200/s", async () => {
    const { send } = await clientFor(await startFixedCapacityServer(5));
    // Above capacity the backlog grows by (rate − 200)/s: at 240/s over a 3 s step, 120 requests × 5 ms = 600 ms
    // of queue by the end, far past the 150 ms limit (at 225/s, 375 ms); below capacity a request waits only for
    // timer jitter, and one stall of the shared event loop (GC, a busy host) stays under 150 ms.
    const result = await searchMaxRate({
      startRate: 100,
      maxRate: 1000,
      factor: 1.5,
      p99LimitMs: 150,
      maxFailureFraction: 0.001,
      refineSteps: 3,
      runStep: async (rate) => {
        const run = await runOpenLoop({ schedule: constant(rate, 3000), send, maxInFlight: 1000, warmupMs: 0 });
        return { p99Ms: run.latency.p99Ms, intended: run.measured.intended, ok: run.measured.ok };
      },
    });
    expect(result.maxRate).toBeDefined();
    expect(result.maxRate!).toBeGreaterThanOrEqual(200 * 0.8);
    expect(result.maxRate!).toBeLessThanOrEqual(200 * 1.2);
    expect(result.steps.some((s) => !s.passed)).toBe(true);
  });
});

describe("errors", () => {
  it("counts transport errors by kind apart from HTTP errors by status", async () => {
    let n = 0;
    const server = await startTestServer((_request, response, done) => {
      const i = n++;
      if (i % 4 === 1) {
        response.writeHead(503, { "content-type": "application/json" });
        response.end('{"error":"queue full"}');
        done();
        return;
      }
      if (i % 4 === 2) {
        response.socket?.destroy();
        done();
        return;
      } // reset mid-request
      if (i % 4 === 3) {
        setTimeout(done, 3000);
        return;
      } // never answers within the deadline
      response.writeHead(200, { "content-type": "application/json", "server-timing": "compute;dur=1.5" });
      response.end(JSON.stringify({ outputs: [{ name: "y", datatype: "FP32", shape: [1], data: [1] }] }));
      done();
    });
    // A deadline well above a normal answer's time on a busy host, well below the silent one's 3 s.
    const { send } = await clientFor(server, { timeoutMs: 600 });
    const result = await runOpenLoop({ schedule: constant(50, 400), send, maxInFlight: 100, warmupMs: 0 });
    // 20 requests, i mod 4 = 0…3 five times each.
    expect(result.measured.ok).toBe(5);
    expect(result.measured.httpErrors).toEqual({ 503: 5 });
    expect(result.measured.transportErrors).toMatchObject({ reset: 5, timed_out: 5, refused: 0 });
    expect(result.serverTiming.compute!.p50Ms).toBeCloseTo(1.5, 2);
  });

  it("a closed port is 'refused', and a 200 that is not an inference response is a bad response", async () => {
    const { send } = await clientFor(`http://127.0.0.1:${await freePort()}`);
    const refused = await runOpenLoop({ schedule: constant(100, 50), send, maxInFlight: 10, warmupMs: 0 });
    expect(refused.measured.transportErrors.refused).toBe(5);
    const liar = await startTestServer((_request, response, done) => {
      response.end("<html>ok</html>");
      done();
    });
    const { send: sendToLiar } = await clientFor(liar);
    const bad = await runOpenLoop({ schedule: constant(100, 50), send: sendToLiar, maxInFlight: 10, warmupMs: 0 });
    expect(bad.measured).toMatchObject({ ok: 0, badResponses: 5 });
    expect(bad.errorSamples[0]).toMatch(/not JSON/);
  });
});
