import { describe, expect, it } from "vitest";
import { LatencyHistogram } from "@packrat/core/stats/histogram";
import { RunRecorder } from "./run-recorder";

describe("RunRecorder", () => {
  it("measures latency from the intended time, service from the actual send, and the lag between them", () => {
    // Intended at 1000 ms, sent 3 ms late at 1003, answered at 1010: latency 10 ms, service 7 ms, lag 3 ms.
    const recorder = new RunRecorder({ warmupMs: 0, keepRecords: true });
    recorder.sent(1000, 1003);
    recorder.completed(0, 1000, 1003, 1010, { kind: "ok", status: 200, serverTiming: { compute: 5 } }, 1008);
    const stats = recorder.finish(1000);
    // HDR keeps 3 significant digits: 10 ms reads as 10.007 (the top of its 8 µs bucket).
    expect(stats.latency.p50Ms).toBeCloseTo(10, 1);
    expect(stats.service.p50Ms).toBeCloseTo(7, 2);
    expect(stats.sendLag.p50Ms).toBeCloseTo(3, 2);
    expect(stats.serverTiming.compute!.p50Ms).toBeCloseTo(5, 2);
    expect(stats.records).toEqual([
      {
        index: 0,
        intendedMs: 1000,
        sentMs: 1003,
        doneMs: 1010,
        headersMs: 1008,
        outcome: "ok",
        status: 200,
        transport: undefined,
        serverTiming: { compute: 5 },
        warmup: false,
      },
    ]);
  });

  it("builds a per-second timeline by intended time with exact percentiles of each second", () => {
    const recorder = new RunRecorder({ warmupMs: 0 });
    // Second 0: latencies 1…100 ms → p50 = the 50th = 50, p99 = the 99th = 99. Second 2: one drop. Second 1: nothing.
    for (let i = 1; i <= 100; i++) {
      recorder.sent(i, i);
      recorder.completed(i, i, i, 2 * i, { kind: "ok", status: 200 });
    }
    recorder.dropped(101, 2500);
    const { timeline } = recorder.finish(3000);
    expect(timeline).toHaveLength(3);
    expect(timeline[0]).toMatchObject({ second: 0, intended: 100, ok: 100, p50Ms: 50, p99Ms: 99, maxMs: 100 });
    expect(timeline[1]).toEqual({ second: 1, warmup: false, intended: 0, sent: 0, ok: 0, errors: 0, dropped: 0 });
    expect(timeline[2]).toMatchObject({ dropped: 1, intended: 1 });
  });

  it("its latency histogram travels in the shared wire form and decodes to the same summary", () => {
    const recorder = new RunRecorder({ warmupMs: 0 });
    for (let i = 0; i < 50; i++) {
      recorder.sent(i, i);
      recorder.completed(i, i, i, i + 1 + (i % 7), { kind: "ok", status: 200 });
    }
    const { latency } = recorder.finish(1000);
    const { histogram, ...summary } = latency;
    expect(LatencyHistogram.decode(histogram).summary()).toEqual(summary);
  });
});
