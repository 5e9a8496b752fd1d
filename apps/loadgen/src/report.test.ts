import { describe, expect, it } from "vitest";
import { parseCliOptions } from "./cli-options";
import { buildReport, describeConfig, REPORT_FORMAT } from "./report";
import { RunRecorder } from "./run-recorder";

const config = (args: string, files: Record<string, string> = {}) => {
  const c = parseCliOptions(args.split(" "), {}, (path) => files[path] ?? "");
  if (c === "help") throw new Error("unexpected help");
  return c;
};

describe("report", () => {
  it("states a replayed trace by its size and speed, not its rows", () => {
    const described = describeConfig(
      config("--model m --pattern replay --replay t.csv --replay-speed 3", { "t.csv": "0\n1\n2\n" }),
    );
    expect(described.pattern).toEqual({ kind: "replay", arrivals: 3, speed: 3 });
  });

  it("never writes per-request records, and keeps target, model and mode", () => {
    const recorder = new RunRecorder({ warmupMs: 0, keepRecords: true });
    recorder.sent(0, 0);
    recorder.completed(0, 0, 0, 1, { kind: "ok", status: 200 });
    const open = { ...recorder.finish(1000), durationMs: 1000, notReached: 0 };
    expect(open.records).toHaveLength(1);
    const report = buildReport(config("--model tiny --rate 1 --url http://127.0.0.1:9000/"), new Date(0), {
      open,
      schedule: { requests: 1, truncated: false },
    });
    expect(report).toMatchObject({
      format: REPORT_FORMAT,
      target: "http://127.0.0.1:9000",
      model: "tiny",
      mode: "open",
      startedAt: "1970-01-01T00:00:00.000Z",
    });
    expect(report.open).not.toHaveProperty("records");
    expect(report.open!.measured.ok).toBe(1);
  });
});
