import { describe, expect, it } from "vitest";
import { parseCliOptions } from "../../../loadgen/src/cli-options";
import type { LoadTestJobParams } from "@packrat/contracts/agent-jobs";
import { expectedDurationS, inputShapes, LoadTestArgsError, loadgenArgs, rampSteps } from "./load-test-args";

const cnn = [{ name: "input", shape: [-1, 3, 32, 32] }];
const params = (spec: LoadTestJobParams["spec"], dimensions: Record<string, number> = {}): LoadTestJobParams => ({
  loadTestId: "lt1",
  deploymentId: "d1",
  modelName: "tiny-cnn",
  spec,
  dimensions,
});
const target = { url: "http://127.0.0.1:8000", out: "/tmp/report.json", inputs: cnn };
// The real CLI parser is the judge of every command line built here.
const parse = (args: string[]) => {
  const config = parseCliOptions(args, {}, () => "");
  if (config === "help") throw new Error("help");
  return config;
};

describe("rampSteps", () => {
  it("10 → 50 req/s in 5 steps over 10 s: 10, 20, 30, 40, 50, each (10 000 ms)/5 = 2000 ms", () => {
    expect(rampSteps(10, 50, 5, 10)).toEqual([10, 20, 30, 40, 50].map((rate) => ({ rate, durationMs: 2000 })));
  });

  it("a falling ramp 30 → 10 in 3 steps over 9 s: 30, 20, 10 at 3000 ms", () => {
    expect(rampSteps(30, 10, 3, 9)).toEqual([30, 20, 10].map((rate) => ({ rate, durationMs: 3000 })));
  });
});

describe("expectedDurationS", () => {
  it("an open run lasts its duration", () => {
    expect(
      expectedDurationS({ mode: "open", pattern: "poisson", ratePerS: 5, durationS: 7, binary: false, batch: 1 }),
    ).toBe(7);
  });

  it("a search from 10 to 100 req/s by ×1.5: ⌈ln 10 / ln 1.5⌉ = ⌈5.68⌉ = 6, + 1 = 7 ramp steps, + 3 bisections = 10 steps × 2 s = 20 s", () => {
    expect(
      expectedDurationS({
        mode: "search",
        p99LimitMs: 50,
        startRatePerS: 10,
        maxRatePerS: 100,
        stepS: 2,
        binary: true,
        batch: 1,
      }),
    ).toBe(20);
  });
});

describe("loadgenArgs", () => {
  it("open Poisson at 20 req/s for 5 s, binary: the CLI reads back exactly that", () => {
    const config = parse(
      loadgenArgs(
        params({ mode: "open", pattern: "poisson", ratePerS: 20, durationS: 5, binary: true, batch: 2 }),
        target,
      ),
    );
    expect(config.mode).toBe("open");
    expect(config.pattern).toEqual({ kind: "poisson", rate: 20 });
    expect(config.durationMs).toBe(5000);
    expect(config.binary).toBe(true);
    expect(config.batch).toBe(2);
    expect(config.model).toBe("tiny-cnn");
    expect(config.out).toBe("/tmp/report.json");
    expect(config.url.origin).toBe("http://127.0.0.1:8000");
  });

  it("a ramp 10 → 40 in 4 steps over 6 s becomes steps 10, 20, 30, 40 of 1500 ms", () => {
    const config = parse(
      loadgenArgs(
        params({
          mode: "ramp",
          arrivals: "constant",
          fromRatePerS: 10,
          toRatePerS: 40,
          steps: 4,
          durationS: 6,
          binary: false,
          batch: 1,
        }),
        target,
      ),
    );
    expect(config.pattern).toEqual({
      kind: "steps",
      arrivals: "constant",
      steps: [10, 20, 30, 40].map((rate) => ({ rate, durationMs: 1500 })),
    });
    expect(config.binary).toBe(false);
  });

  it("a search for the max rate with p99 ≤ 25 ms becomes the CLI's search mode", () => {
    const config = parse(
      loadgenArgs(
        params({
          mode: "search",
          p99LimitMs: 25,
          startRatePerS: 5,
          maxRatePerS: 200,
          stepS: 3,
          binary: true,
          batch: 1,
        }),
        target,
      ),
    );
    expect(config.mode).toBe("search");
    expect(config.search).toMatchObject({
      p99LimitMs: 25,
      startRate: 5,
      maxRate: 200,
      stepMs: 3000,
      factor: 1.5,
      refineSteps: 3,
    });
  });

  it("a dynamic sequence gets the job's size: input_ids [-1, -1] at batch 4, sequence 16 → 4,16", () => {
    const inputs = [{ name: "input_ids", shape: [-1, -1] }];
    const config = parse(
      loadgenArgs(
        params(
          { mode: "open", pattern: "constant", ratePerS: 1, durationS: 1, binary: true, batch: 4 },
          { sequence: 16 },
        ),
        { ...target, inputs },
      ),
    );
    expect(config.shapes).toEqual({ input_ids: [4, 16] });
  });

  it("a non-loopback agent address is allowed by name (the CLI refuses remote targets otherwise)", () => {
    const config = parse(
      loadgenArgs(params({ mode: "open", pattern: "constant", ratePerS: 1, durationS: 1, binary: false, batch: 1 }), {
        ...target,
        url: "http://10.0.0.7:8000",
      }),
    );
    expect(config.url.hostname).toBe("10.0.0.7");
  });
});

describe("inputShapes", () => {
  it("leaves inputs with only a dynamic batch alone", () => {
    expect(inputShapes(cnn, 8, { sequence: 16 })).toEqual({});
  });

  it("refuses a dynamic dimension without a size, and two different sizes it cannot tell apart", () => {
    const inputs = [{ name: "input_ids", shape: [-1, -1] }];
    expect(() => inputShapes(inputs, 1, {})).toThrow(LoadTestArgsError);
    expect(() => inputShapes(inputs, 1, { sequence: 16, past: 8 })).toThrow(
      expect.objectContaining({ code: "ambiguous_dimension", parameter: "dimensions" }),
    );
  });
});
