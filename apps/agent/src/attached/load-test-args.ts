// A load-test job → the load generator's command line (apps/loadgen/src/cli-options.ts), against the agent's own
// port. Pure: the caller reads the model's OIP metadata and runs the process.
import type { LoadTestJobParams, LoadTestSpec } from "@packrat/contracts/agent-jobs";

export class LoadTestArgsError extends Error {
  constructor(
    readonly code: "ambiguous_dimension" | "missing_dimension",
    readonly parameter: string,
    message: string,
  ) {
    super(`${parameter}: ${message}`);
    this.name = "LoadTestArgsError";
  }
}

export interface LoadTestTarget {
  /** The agent's base URL, e.g. http://127.0.0.1:8000. */
  url: string;
  /** Where the load generator writes its JSON report. */
  out: string;
  /** The model's inputs from GET /v2/models/{name} (-1 = dynamic). */
  inputs: ReadonlyArray<{ name: string; shape: readonly number[] }>;
}

const SEARCH_FACTOR = 1.5;
const SEARCH_REFINE = 3;

/** Seconds as the CLI reads them, exact to the millisecond ("1500ms"). */
const ms = (milliseconds: number) => `${Math.round(milliseconds)}ms`;

/** The ramp's steps: `steps` rates evenly from `from` to `to`, each for an equal share of the duration. */
export function rampSteps(
  from: number,
  to: number,
  steps: number,
  durationS: number,
): Array<{ rate: number; durationMs: number }> {
  const each = (durationS * 1000) / steps;
  return Array.from({ length: steps }, (_, i) => ({ rate: from + ((to - from) * i) / (steps - 1), durationMs: each }));
}

/** The longest a run can take (s): the duration, or every step of the search's ramp and bisection. */
export function expectedDurationS(spec: LoadTestSpec): number {
  if (spec.mode !== "search") return spec.durationS;
  const rampSteps = Math.ceil(Math.log(spec.maxRatePerS / spec.startRatePerS) / Math.log(SEARCH_FACTOR)) + 1;
  return (rampSteps + SEARCH_REFINE) * spec.stepS;
}

/** Full shapes (batch first) for inputs with dynamic non-batch dimensions, from the job's dimension sizes. */
export function inputShapes(
  inputs: LoadTestTarget["inputs"],
  batch: number,
  dimensions: Record<string, number>,
): Record<string, number[]> {
  const sizes = [...new Set(Object.values(dimensions))];
  const shapes: Record<string, number[]> = {};
  for (const input of inputs) {
    if (!input.shape.slice(1).some((d) => d === -1)) continue;
    // OIP metadata says only "-1"; the job knows sizes by symbol. One distinct size is unambiguous.
    if (sizes.length === 0)
      throw new LoadTestArgsError(
        "missing_dimension",
        "dimensions",
        `input ${input.name} [${input.shape}] has a dynamic dimension and the job gives no size`,
      );
    if (sizes.length > 1)
      throw new LoadTestArgsError(
        "ambiguous_dimension",
        "dimensions",
        `input ${input.name} [${input.shape}]: cannot tell which of ${JSON.stringify(dimensions)} applies`,
      );
    shapes[input.name] = input.shape.map((d, i) => (i === 0 ? batch : d === -1 ? sizes[0]! : d));
  }
  return shapes;
}

export function loadgenArgs(params: LoadTestJobParams, target: LoadTestTarget): string[] {
  const { spec } = params;
  const args = [
    "--url",
    target.url,
    "--model",
    params.modelName,
    "--batch",
    String(spec.batch),
    "--out",
    target.out,
    "--quiet",
    "--timeout",
    "30s",
  ];
  if (spec.binary) args.push("--binary");
  for (const [name, shape] of Object.entries(inputShapes(target.inputs, spec.batch, params.dimensions)))
    args.push("--shape", `${name}=${shape.join(",")}`);
  const host = new URL(target.url).hostname.replace(/^\[(.*)\]$/, "$1");
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "::1") args.push("--allow-remote", host);
  switch (spec.mode) {
    case "open":
      args.push("--pattern", spec.pattern, "--rate", String(spec.ratePerS), "--duration", `${spec.durationS}s`);
      break;
    case "ramp":
      args.push(
        "--pattern",
        "steps",
        "--arrivals",
        spec.arrivals,
        "--steps",
        rampSteps(spec.fromRatePerS, spec.toRatePerS, spec.steps, spec.durationS)
          .map((s) => `${s.rate}:${ms(s.durationMs)}`)
          .join(","),
      );
      break;
    case "search":
      args.push(
        "--mode",
        "search",
        "--p99-limit",
        `${spec.p99LimitMs}ms`,
        "--start-rate",
        String(spec.startRatePerS),
        "--max-rate",
        String(spec.maxRatePerS),
        "--step-duration",
        `${spec.stepS}s`,
        "--ramp-factor",
        String(SEARCH_FACTOR),
        "--refine",
        String(SEARCH_REFINE),
      );
      break;
  }
  return args;
}
