import { describe, expect, it } from "vitest";
import { RunRecorder } from "./run-recorder";
import { formatProgress, formatRunSummary, formatSearch, formatSweep } from "./summary-text";

describe("summary text", () => {
  it("progress line: time, counts, in flight and latency", () => {
    expect(
      formatProgress(
        { elapsedMs: 12_000, inFlight: 2, sent: 1200, ok: 1198, errors: 1, dropped: 1, p50Ms: 1.2, p99Ms: 34.5 },
        30_000,
      ),
    ).toBe("[12.0s/30s] sent 1200 ok 1198 err 1 drop 1 in-flight 2 | p50 1.20ms p99 34.5ms");
  });

  it("run summary names every kind of failure and the warm-up left out", () => {
    const recorder = new RunRecorder({ warmupMs: 1000 });
    recorder.sent(500, 500);
    recorder.completed(0, 500, 500, 510, { kind: "ok", status: 200 });
    recorder.sent(1500, 1500);
    recorder.completed(1, 1500, 1500, 1504, { kind: "ok", status: 200, serverTiming: { compute: 2 } });
    recorder.sent(1600, 1600);
    recorder.completed(2, 1600, 1600, 1601, { kind: "http_error", status: 503, detail: "queue full" });
    recorder.sent(1700, 1700);
    recorder.completed(3, 1700, 1700, 1800, {
      kind: "transport_error",
      transport: "timed_out",
      detail: "no response within 100 ms",
    });
    recorder.dropped(4, 1800);
    const text = formatRunSummary(recorder.finish(1000)).join("\n");
    expect(text).toContain(
      "4 due, 3 sent, 1 ok, 2 errors (HTTP 503: 1, timed out: 1), 1 dropped by the in-flight cap; 1 in the warm-up, left out",
    );
    expect(text).toContain("1.0 ok/s of 4.0/s offered");
    expect(text).toMatch(/latency from intended send \(ok\): p50 4\.00ms/);
    expect(text).toContain("server timing: compute p50 2.00ms");
    expect(text).toContain("error: http_error: queue full");
  });

  it("sweep table and search verdict", () => {
    expect(formatSweep([{ concurrency: 4, okPerS: 200, p50Ms: 20, p90Ms: 21, p99Ms: 25, ok: 400, errors: 0 }])[1]).toBe(
      "          4   200.0    20.0ms    21.0ms    25.0ms        0",
    );
    expect(formatSearch({ maxRate: 190, firstFailingRate: 200, steps: [] }, 50).at(-1)).toBe(
      "max rate with p99 ≤ 50 ms: 190.0/s (fails at 200.0/s)",
    );
    expect(formatSearch({ steps: [] }, 50).at(-1)).toBe("no rate tried keeps p99 ≤ 50 ms");
  });
});
