import { describe, expect, it } from "vitest";
import { LatencyHistogram } from "@/core/stats/histogram";
import { loadgenReportSchema } from "@/contracts/agent-jobs";
import { errorClasses, SPECTRUM_PERCENTILES, summarizeLoadgenReport } from "./load-test-report";

/** A report as the load generator writes it: latencies 1, 2, …, 100 ms, some errors and drops, two seconds. */
function openReport() {
  const histogram = LatencyHistogram.create();
  for (let ms = 1; ms <= 100; ms++) histogram.recordMs(ms);
  const summary = histogram.summary();
  return loadgenReportSchema.parse({
    format: "packrat-loadgen/1",
    startedAt: "2026-11-29T10:00:00.000Z",
    finishedAt: "2026-11-29T10:00:02.000Z",
    target: "http://127.0.0.1:8000",
    model: "tiny-cnn",
    mode: "open",
    config: { pattern: { kind: "constant", rate: 60 } },
    open: {
      measured: {
        intended: 110,
        sent: 106,
        ok: 100,
        httpErrors: { "503": 2, "500": 0 },
        badResponses: 1,
        transportErrors: { refused: 0, reset: 2, timed_out: 1, other: 0 },
        dropped: 4,
      },
      warmup: { intended: 10 },
      windowMs: 2000,
      offeredPerS: 55,
      okPerS: 50,
      latency: { ...summary, histogram: histogram.encode() },
      service: summary,
      sendLag: summary,
      serverTiming: { compute: { count: 100, meanMs: 0.4, p50Ms: 0.4, p90Ms: 0.5, p95Ms: 0.5, p99Ms: 0.9, maxMs: 1 } },
      timeline: [
        {
          second: 0,
          warmup: true,
          intended: 60,
          sent: 58,
          ok: 55,
          errors: 1,
          dropped: 2,
          p50Ms: 40,
          p99Ms: 90,
          maxMs: 95,
        },
        { second: 1, warmup: false, intended: 60, sent: 58, ok: 55, errors: 4, dropped: 2 },
      ],
      errorSamples: ["503: queue full"],
      durationMs: 2000,
      notReached: 0,
    },
  });
}

describe("errorClasses", () => {
  it("HTTP errors by status, bad responses, transport errors by kind and drops; zero counts left out", () => {
    expect(
      errorClasses({
        httpErrors: { "503": 2, "500": 0, "429": 1 },
        badResponses: 1,
        transportErrors: { refused: 0, reset: 2, timed_out: 1, other: 0 },
        dropped: 4,
      }),
    ).toEqual([
      { errorClass: "HTTP 429", count: 1 },
      { errorClass: "HTTP 503", count: 2 },
      { errorClass: "bad response (200 without an inference body)", count: 1 },
      { errorClass: "transport: reset", count: 2 },
      { errorClass: "transport: timed out", count: 1 },
      { errorClass: "dropped by the client (in-flight cap)", count: 4 },
    ]);
  });

  it("a run without failures has no classes", () => {
    expect(
      errorClasses({
        httpErrors: {},
        badResponses: 0,
        transportErrors: { refused: 0, reset: 0, timed_out: 0, other: 0 },
        dropped: 0,
      }),
    ).toEqual([]);
  });
});

describe("summarizeLoadgenReport", () => {
  it("an open run: errors = 2 (HTTP 503) + 1 (bad) + 2 (reset) + 1 (timed out) = 6, drops counted apart (4)", () => {
    const s = summarizeLoadgenReport(openReport()).open!;
    expect(s.counts).toEqual({ intended: 110, sent: 106, ok: 100, dropped: 4, errors: 6 });
    expect(s.windowS).toBe(2);
    expect(s.okPerS).toBe(50);
    expect(s.serverTiming).toEqual([{ name: "compute", meanMs: 0.4, p99Ms: 0.9 }]);
    expect(s.errorSamples).toEqual(["503: queue full"]);
  });

  it("the spectrum reads the histogram: p50 of 1…100 ms is the 50th value, 50 ms; p99 is 99 ms; p100 is 100 ms (HDR: within 0.1%)", () => {
    const s = summarizeLoadgenReport(openReport()).open!;
    expect(s.spectrum.map((p) => p.percentile)).toEqual([...SPECTRUM_PERCENTILES]);
    const at = (p: number) => s.spectrum.find((x) => x.percentile === p)!.latencyMs;
    expect(Math.abs(at(50) - 50) / 50).toBeLessThan(0.001);
    expect(Math.abs(at(99) - 99) / 99).toBeLessThan(0.001);
    expect(Math.abs(at(100) - 100) / 100).toBeLessThan(0.001);
    // A spectrum never falls.
    for (let i = 1; i < s.spectrum.length; i++)
      expect(s.spectrum[i]!.latencyMs).toBeGreaterThanOrEqual(s.spectrum[i - 1]!.latencyMs);
  });

  it("a second without successes has no percentiles (null, never NaN)", () => {
    const t = summarizeLoadgenReport(openReport()).open!.timeline;
    expect(t[0]).toEqual({
      second: 0,
      warmup: true,
      intended: 60,
      ok: 55,
      errors: 1,
      dropped: 2,
      p50Ms: 40,
      p99Ms: 90,
    });
    expect(t[1]).toMatchObject({ second: 1, warmup: false, p50Ms: null, p99Ms: null });
  });

  it("a search: its steps, the max rate and the first failing rate", () => {
    const report = loadgenReportSchema.parse({
      format: "packrat-loadgen/1",
      startedAt: "a",
      finishedAt: "b",
      target: "t",
      model: "m",
      mode: "search",
      config: {},
      search: {
        maxRate: 15,
        firstFailingRate: 22.5,
        steps: [
          { rate: 10, p99Ms: 20, intended: 40, ok: 40, passed: true, reason: "p99 20.0 ms ≤ 50 ms" },
          { rate: 15, p99Ms: 30, intended: 60, ok: 60, passed: true, reason: "p99 30.0 ms ≤ 50 ms" },
          { rate: 22.5, p99Ms: 80, intended: 90, ok: 90, passed: false, reason: "p99 80.0 ms > 50 ms" },
        ],
      },
    });
    const s = summarizeLoadgenReport(report);
    expect(s.open).toBeNull();
    expect(s.search).toEqual({
      maxRatePerS: 15,
      firstFailingRatePerS: 22.5,
      steps: [
        { ratePerS: 10, p99Ms: 20, intended: 40, ok: 40, passed: true, reason: "p99 20.0 ms ≤ 50 ms" },
        { ratePerS: 15, p99Ms: 30, intended: 60, ok: 60, passed: true, reason: "p99 30.0 ms ≤ 50 ms" },
        { ratePerS: 22.5, p99Ms: 80, intended: 90, ok: 90, passed: false, reason: "p99 80.0 ms > 50 ms" },
      ],
    });
  });

  it("a search where even the start rate failed has no max rate (null)", () => {
    const report = loadgenReportSchema.parse({
      format: "packrat-loadgen/1",
      startedAt: "a",
      finishedAt: "b",
      target: "t",
      model: "m",
      mode: "search",
      config: {},
      search: {
        firstFailingRate: 10,
        steps: [{ rate: 10, p99Ms: 90, intended: 40, ok: 40, passed: false, reason: "p99 90.0 ms > 50 ms" }],
      },
    });
    expect(summarizeLoadgenReport(report).search).toMatchObject({ maxRatePerS: null, firstFailingRatePerS: 10 });
  });

  it("refuses a corrupt histogram instead of drawing garbage", () => {
    const report = openReport();
    report.open!.latency.histogram = "not-a-histogram";
    expect(() => summarizeLoadgenReport(report)).toThrow(/histogram|encoded/i);
  });
});
