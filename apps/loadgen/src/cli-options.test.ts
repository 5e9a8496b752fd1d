import { describe, expect, it } from "vitest";
import { parseCliOptions, parseConcurrency, parseSteps } from "./cli-options";
import { LoadgenInputError } from "./errors";

const noFiles = (path: string): string => {
  throw new Error(`ENOENT: ${path}`);
};
const parse = (args: string, files: (path: string) => string = noFiles) =>
  parseCliOptions(args.split(" ").filter(Boolean), {}, files);

describe("parseCliOptions", () => {
  it("reads the issue's example: --url … --model NAME --rate 200 --pattern poisson --duration 30s --binary --out run.json", () => {
    const config = parse(
      "--url http://127.0.0.1:8000 --model resnet50 --rate 200 --pattern poisson --duration 30s --binary --out run.json",
    );
    expect(config).toMatchObject({
      model: "resnet50",
      mode: "open",
      pattern: { kind: "poisson", rate: 200 },
      durationMs: 30_000,
      binary: true,
      out: "run.json",
      warmupMs: 3000, // 10% of 30 s
      maxInFlight: 256,
      timeoutMs: 10_000,
      seed: 1,
      batch: 1,
    });
    expect(config !== "help" && config.url.port).toBe("8000");
  });

  it("defaults: loopback port 8000, constant pattern, 10 s, warm-up capped at 5 s", () => {
    expect(parse("--model m --rate 5")).toMatchObject({
      pattern: { kind: "constant", rate: 5 },
      durationMs: 10_000,
      warmupMs: 1000,
    });
    expect(parse("--model m --rate 5 --duration 2m")).toMatchObject({ warmupMs: 5000 });
  });

  it("bursts and steps: phase lengths, rates and their own duration", () => {
    expect(
      parse("--model m --pattern bursts --rate 400 --off-rate 10 --on 500ms --off 2s --arrivals poisson"),
    ).toMatchObject({
      pattern: { kind: "bursts", onRate: 400, offRate: 10, onMs: 500, offMs: 2000, arrivals: "poisson" },
    });
    // 50:10s + 100:5s → 15 s of steps when no --duration is given.
    expect(parse("--model m --pattern steps --steps 50:10s,100:5s")).toMatchObject({
      durationMs: 15_000,
      pattern: {
        steps: [
          { rate: 50, durationMs: 10_000 },
          { rate: 100, durationMs: 5000 },
        ],
      },
    });
  });

  it("replay reads the CSV through the function given, and runs as long as the trace", () => {
    const config = parse("--model m --pattern replay --replay trace.csv --replay-speed 2", (path) =>
      path === "trace.csv" ? "t\n0\n1\n3\n" : noFiles(path),
    );
    // 0, 1, 3 s at double speed → 0, 500, 1500 ms; the run lasts 1500 + 1 ms.
    expect(config).toMatchObject({ pattern: { kind: "replay", timesMs: [0, 1000, 3000], speed: 2 }, durationMs: 1501 });
    expect(() => parse("--model m --pattern replay --replay missing.csv")).toThrow(/cannot read missing\.csv/);
  });

  it("closed and search modes", () => {
    expect(parse("--model m --mode closed --concurrency 1:16 --duration 5s")).toMatchObject({
      mode: "closed",
      concurrency: [1, 2, 4, 8, 16],
    });
    expect(parse("--model m --mode search --p99-limit 50 --start-rate 20 --step-duration 3s --refine 4")).toMatchObject(
      {
        mode: "search",
        warmupMs: 0,
        search: { p99LimitMs: 50, startRate: 20, stepMs: 3000, refineSteps: 4, factor: 1.5, arrivals: "constant" },
      },
    );
  });

  it("request shape options: --shape and --input-file as NAME=VALUE, repeatable", () => {
    expect(
      parse(
        "--model m --rate 1 --shape input_ids=1,128 --shape attention_mask=1,128 --input-file x=/tmp/x.bin --batch 4",
      ),
    ).toMatchObject({
      shapes: { input_ids: [1, 128], attention_mask: [1, 128] },
      inputFiles: { x: "/tmp/x.bin" },
      batch: 4,
    });
  });

  it("says what is wrong, naming the flag", () => {
    const cases: Array<[string, string]> = [
      ["--rate 5", "--model"],
      ["--model m", "--rate"],
      ["--model m --rate fast", "--rate"],
      ["--model m --rate 5 --duration 1s --warmup 2s", "--warmup"],
      ["--model m --rate 5 --url http://10.1.2.3:8000", "--url"],
      ["--model m --rate 5 --pattern zigzag", "--pattern"],
      ["--model m --mode closed --pattern bursts --rate 5", "--pattern"],
      ["--model m --rate 5 --shape input", "--shape"],
      ["--model m --rate 5 --timeout 0s", "--timeout"],
      ["--model m --rate 5 --bogus", "arguments"],
    ];
    for (const [args, parameter] of cases) {
      let caught: unknown;
      try {
        parse(args);
      } catch (error) {
        caught = error;
      }
      expect(caught, args).toBeInstanceOf(LoadgenInputError);
      expect((caught as LoadgenInputError).parameter, args).toBe(parameter);
    }
    expect(parse("--model m --rate 5 --url http://10.1.2.3:8000 --allow-remote 10.1.2.3")).toMatchObject({
      model: "m",
    });
    expect(parse("--help")).toBe("help");
  });
});

describe("parseSteps / parseConcurrency", () => {
  it("steps are RATE:DURATION pairs", () => {
    expect(parseSteps("10:1s,20:500ms")).toEqual([
      { rate: 10, durationMs: 1000 },
      { rate: 20, durationMs: 500 },
    ]);
    expect(() => parseSteps("10")).toThrow(/step 1 "10" is not RATE:DURATION/);
  });

  it("concurrency: a list, or a range of powers of two", () => {
    expect(parseConcurrency("1,3,5")).toEqual([1, 3, 5]);
    expect(parseConcurrency("4:32")).toEqual([4, 8, 16, 32]);
    expect(parseConcurrency(undefined)).toEqual([1, 2, 4, 8]);
    expect(() => parseConcurrency("0")).toThrow(LoadgenInputError);
  });
});
