// `npm run loadgen -- …` flags → a validated configuration (pure: files are read through the function given).
import { loadLoadgenEnv } from "./env";
import { parseArgs } from "node:util";
import { parseArrivalCsv } from "./arrival-csv";
import { powersOfTwoUpTo } from "./closed-loop";
import { parseDurationMs } from "./duration";
import { LoadgenInputError, requireInteger, requireNumber } from "./errors";
import {
  MAX_DURATION_MS,
  MAX_RATE_PER_S,
  MAX_SCHEDULE_REQUESTS,
  naturalDurationMs,
  type Arrivals,
  type Pattern,
} from "./schedule";
import { checkTarget } from "./target";

export const USAGE = `usage: npm run loadgen -- --model NAME [options]

target
  --url URL               agent base URL (default http://127.0.0.1:8000; loopback only unless --allow-remote)
  --model NAME            model to load (OIP v2: POST /v2/models/NAME/infer)
  --model-version V       a specific version
  --allow-remote HOST     allow a non-loopback target; must name the URL's host exactly
  --token TOKEN           bearer token (or LOADGEN_TOKEN)
  --protocol P            http (default) | grpc: OIP over gRPC (KServe v2 ModelInfer, raw tensors) to --url's host and
                          port (the agent's AGENT_GRPC_PORT, e.g. http://127.0.0.1:8001)

load (--mode open, the default: arrivals follow the schedule whatever the responses do)
  --pattern P             constant | poisson | bursts | steps | replay (default constant)
  --rate N                requests/s (bursts: the rate during the on phase)
  --duration D            run length, e.g. 30s (default 10s; steps and replay: their own length)
  --warmup D              left out of the statistics (default 10% of the duration, at most 5s)
  --on D --off D          bursts: phase lengths (default 1s each); --off-rate N: rate while off (default 0)
  --steps LIST            steps: rate:duration,… e.g. 50:10s,100:10s,200:10s
  --arrivals A            within bursts and steps: constant | poisson (default constant)
  --replay FILE.csv       replay: one arrival per row (see docs/load-generator.md); --replay-speed X plays it X times faster
  --max-in-flight N       requests outstanding at most; arrivals beyond are dropped and counted (default 256)
  --seed N                schedule and input seed (default 1)

other modes
  --mode closed           closed-loop sweep; --concurrency 1,2,4,8 or 1:16 (powers of two; default 1:8), --duration per level
  --mode search           the highest rate with p99 ≤ --p99-limit (default 100ms): step ramp from --start-rate (default 10)
                          by --ramp-factor (default 1.5) up to --max-rate, --step-duration each (default 5s),
                          then --refine bisections (default 3); a step fails above --max-failures (default 0.001)

requests
  --binary                binary tensor data extension (default JSON tensors)
  --batch N               rows per request where the batch dimension is dynamic (default 1)
  --shape NAME=D,D,…      full shape of an input with other dynamic dimensions (repeatable)
  --input-file NAME=PATH  raw little-endian tensor bytes for an input (repeatable)
  --int-high N            integer inputs drawn from [0, N) (default 100)
  --inputs N              distinct input sets sent in rotation (default 8)
  --timeout D             per-request deadline (default 10s); a late answer is a "timed out" transport error
  --max-requests N        bound on requests per run (default 1000000)

output
  --out FILE.json         the full report (histograms, timeline); a summary is always printed
  --quiet                 no progress line
`;

export type Mode = "open" | "closed" | "search";

export interface SearchConfig {
  p99LimitMs: number;
  startRate: number;
  maxRate: number;
  factor: number;
  stepMs: number;
  refineSteps: number;
  maxFailureFraction: number;
  arrivals: Arrivals;
}

export interface LoadgenConfig {
  url: URL;
  model: string;
  version?: string;
  token?: string;
  mode: Mode;
  protocol: "http" | "grpc";
  pattern: Pattern;
  durationMs: number;
  warmupMs: number;
  seed: number;
  binary: boolean;
  batch: number;
  shapes: Record<string, number[]>;
  inputFiles: Record<string, string>;
  intHigh: number;
  distinctInputs: number;
  maxInFlight: number;
  timeoutMs: number;
  maxRequests: number;
  concurrency: number[];
  search: SearchConfig;
  out?: string;
  quiet: boolean;
}

const flags = {
  url: { type: "string" },
  model: { type: "string" },
  "model-version": { type: "string" },
  "allow-remote": { type: "string" },
  token: { type: "string" },
  mode: { type: "string" },
  protocol: { type: "string" },
  pattern: { type: "string" },
  rate: { type: "string" },
  duration: { type: "string" },
  warmup: { type: "string" },
  on: { type: "string" },
  off: { type: "string" },
  "off-rate": { type: "string" },
  steps: { type: "string" },
  arrivals: { type: "string" },
  replay: { type: "string" },
  "replay-speed": { type: "string" },
  "max-in-flight": { type: "string" },
  seed: { type: "string" },
  concurrency: { type: "string" },
  "p99-limit": { type: "string" },
  "start-rate": { type: "string" },
  "max-rate": { type: "string" },
  "ramp-factor": { type: "string" },
  "step-duration": { type: "string" },
  refine: { type: "string" },
  "max-failures": { type: "string" },
  binary: { type: "boolean" },
  batch: { type: "string" },
  shape: { type: "string", multiple: true },
  "input-file": { type: "string", multiple: true },
  "int-high": { type: "string" },
  inputs: { type: "string" },
  timeout: { type: "string" },
  "max-requests": { type: "string" },
  out: { type: "string" },
  quiet: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

function number(
  flag: string,
  text: string | undefined,
  fallback: number,
  min: number,
  max: number,
  integer = false,
): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value))
    throw new LoadgenInputError("invalid_number", `--${flag}`, `"${text}" is not a number`);
  return integer ? requireInteger(`--${flag}`, value, min, max) : requireNumber(`--${flag}`, value, min, max);
}

function duration(flag: string, text: string | undefined, fallbackMs: number, bareUnit: "s" | "ms" = "s"): number {
  return text === undefined
    ? fallbackMs
    : requireNumber(`--${flag}`, parseDurationMs(`--${flag}`, text, bareUnit), 0, MAX_DURATION_MS);
}

function oneOf<T extends string>(flag: string, text: string | undefined, fallback: T, allowed: readonly T[]): T {
  if (text === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(text))
    throw new LoadgenInputError("invalid_option", `--${flag}`, `"${text}" is not one of ${allowed.join(", ")}`);
  return text as T;
}

function namedValues(flag: string, entries: string[] | undefined): Array<[string, string]> {
  return (entries ?? []).map((entry) => {
    const at = entry.indexOf("=");
    if (at <= 0 || at === entry.length - 1)
      throw new LoadgenInputError("invalid_option", `--${flag}`, `"${entry}" is not NAME=VALUE`);
    return [entry.slice(0, at), entry.slice(at + 1)];
  });
}

export function parseSteps(text: string): Array<{ rate: number; durationMs: number }> {
  return text.split(",").map((part, i) => {
    const [rate, length] = part.split(":");
    if (rate === undefined || length === undefined)
      throw new LoadgenInputError(
        "invalid_pattern",
        "--steps",
        `step ${i + 1} "${part}" is not RATE:DURATION (e.g. 100:10s)`,
      );
    return { rate: number("steps", rate, 0, 0, MAX_RATE_PER_S), durationMs: duration("steps", length, 0) };
  });
}

export function parseConcurrency(text: string | undefined): number[] {
  if (text === undefined) return powersOfTwoUpTo(8);
  const range = /^(\d+):(\d+)$/.exec(text);
  if (range) {
    const [from, to] = [Number(range[1]), Number(range[2])];
    requireInteger("--concurrency", from, 1, 100_000);
    requireInteger("--concurrency", to, from, 100_000);
    return powersOfTwoUpTo(to).filter((c) => c >= from);
  }
  const levels = text.split(",").map((c) => number("concurrency", c, 1, 1, 100_000, true));
  return levels;
}

/** Parses argv; `readText` reads a replay file. Returns "help" when usage was asked for. */
export function parseCliOptions(
  argv: string[],
  env: Record<string, string | undefined>,
  readText: (path: string) => string,
): LoadgenConfig | "help" {
  let values;
  try {
    values = parseArgs({ args: argv, options: flags, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new LoadgenInputError("invalid_option", "arguments", (error as Error).message);
  }
  if (values.help) return "help";
  if (!values.model)
    throw new LoadgenInputError("invalid_option", "--model", "is required (the model's name on the agent)");
  const url = checkTarget(values.url ?? "http://127.0.0.1:8000", values["allow-remote"]);
  const mode = oneOf<Mode>("mode", values.mode, "open", ["open", "closed", "search"]);
  const protocol = oneOf("protocol", values.protocol, "http", ["http", "grpc"] as const);
  if (protocol === "grpc" && values.binary)
    throw new LoadgenInputError(
      "invalid_option",
      "--binary",
      "is for HTTP: over gRPC tensors always travel raw (raw_input_contents)",
    );
  const arrivals = oneOf<Arrivals>("arrivals", values.arrivals, "constant", ["constant", "poisson"]);
  const patternKind = oneOf("pattern", values.pattern, "constant", [
    "constant",
    "poisson",
    "bursts",
    "steps",
    "replay",
  ] as const);
  const rate = () => {
    if (values.rate === undefined)
      throw new LoadgenInputError("invalid_option", "--rate", `is required for --pattern ${patternKind}`);
    return number("rate", values.rate, 0, 0, MAX_RATE_PER_S);
  };
  let pattern: Pattern;
  switch (patternKind) {
    case "constant":
    case "poisson":
      pattern = mode === "open" ? { kind: patternKind, rate: rate() } : { kind: patternKind, rate: 0 };
      break;
    case "bursts":
      pattern = {
        kind: "bursts",
        onRate: rate(),
        offRate: number("off-rate", values["off-rate"], 0, 0, MAX_RATE_PER_S),
        onMs: duration("on", values.on, 1000),
        offMs: duration("off", values.off, 1000),
        arrivals,
      };
      break;
    case "steps":
      if (!values.steps)
        throw new LoadgenInputError(
          "invalid_option",
          "--steps",
          "is required for --pattern steps (e.g. 50:10s,100:10s)",
        );
      pattern = { kind: "steps", steps: parseSteps(values.steps), arrivals };
      break;
    case "replay": {
      if (!values.replay)
        throw new LoadgenInputError(
          "invalid_option",
          "--replay",
          "is required for --pattern replay (a CSV of arrival times)",
        );
      let text: string;
      try {
        text = readText(values.replay);
      } catch (error) {
        throw new LoadgenInputError(
          "invalid_csv",
          "--replay",
          `cannot read ${values.replay}: ${(error as Error).message}`,
        );
      }
      pattern = {
        kind: "replay",
        timesMs: parseArrivalCsv(text, "--replay"),
        speed: number("replay-speed", values["replay-speed"], 1, 1e-6, 1e6),
      };
      break;
    }
  }
  if (mode !== "open" && !["constant", "poisson"].includes(patternKind)) {
    throw new LoadgenInputError("invalid_option", "--pattern", `only applies to --mode open (got --mode ${mode})`);
  }
  const durationMs = duration(
    "duration",
    values.duration,
    (mode === "open" ? naturalDurationMs(pattern) : undefined) ?? 10_000,
  );
  if (durationMs <= 0) throw new LoadgenInputError("out_of_range", "--duration", "must be longer than 0");
  const warmupMs = duration("warmup", values.warmup, mode === "search" ? 0 : Math.min(5000, durationMs / 10));
  if (warmupMs >= durationMs)
    throw new LoadgenInputError(
      "out_of_range",
      "--warmup",
      `(${warmupMs} ms) must be shorter than the run (${durationMs} ms)`,
    );
  const maxRate = number("max-rate", values["max-rate"], 100_000, 1e-3, MAX_RATE_PER_S);
  const search: SearchConfig = {
    p99LimitMs: duration("p99-limit", values["p99-limit"], 100, "ms"),
    startRate: number(
      "start-rate",
      values["start-rate"] ?? (mode === "search" ? values.rate : undefined),
      10,
      1e-3,
      maxRate,
    ),
    maxRate,
    factor: number("ramp-factor", values["ramp-factor"], 1.5, 1.01, 100),
    stepMs: duration("step-duration", values["step-duration"], 5000),
    refineSteps: number("refine", values.refine, 3, 0, 20, true),
    maxFailureFraction: number("max-failures", values["max-failures"], 0.001, 0, 1),
    arrivals: patternKind === "poisson" ? "poisson" : "constant",
  };
  if (search.stepMs <= 0) throw new LoadgenInputError("out_of_range", "--step-duration", "must be longer than 0");
  if (mode === "search" && search.p99LimitMs <= 0)
    throw new LoadgenInputError("out_of_range", "--p99-limit", "must be longer than 0");
  const timeoutMs = duration("timeout", values.timeout, 10_000);
  if (timeoutMs <= 0) throw new LoadgenInputError("out_of_range", "--timeout", "must be longer than 0");
  const shapes = Object.fromEntries(
    namedValues("shape", values.shape).map(([name, dims]) => [
      name,
      dims.split(",").map((d) => number("shape", d, 0, 1, 1 << 30, true)),
    ]),
  );
  return {
    url,
    model: values.model,
    version: values["model-version"],
    token: values.token ?? loadLoadgenEnv(env).LOADGEN_TOKEN,
    mode,
    protocol,
    pattern,
    durationMs,
    warmupMs,
    seed: number("seed", values.seed, 1, 0, 0xffffffff, true),
    binary: values.binary ?? false,
    batch: number("batch", values.batch, 1, 1, 1 << 20, true),
    shapes,
    inputFiles: Object.fromEntries(namedValues("input-file", values["input-file"])),
    intHigh: number("int-high", values["int-high"], 100, 1, Number.MAX_SAFE_INTEGER, true),
    distinctInputs: number("inputs", values.inputs, 8, 1, 1024, true),
    maxInFlight: number("max-in-flight", values["max-in-flight"], 256, 1, 100_000, true),
    timeoutMs,
    maxRequests: number("max-requests", values["max-requests"], 1_000_000, 1, MAX_SCHEDULE_REQUESTS, true),
    concurrency: parseConcurrency(values.concurrency),
    search,
    out: values.out,
    quiet: values.quiet ?? false,
  };
}
