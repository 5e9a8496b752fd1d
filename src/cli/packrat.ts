import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { OptimizerInputError } from "../core/optimizer/errors";
import { optimize } from "../core/optimizer/optimize";
import type { BaselineResult, OptimizedPlan, PlanGroup } from "../core/optimizer/types";
import { ProfileError } from "../core/profile/profile";
import { parseProfileCsv, ProfileCsvError } from "./profile-csv";
import { isRemoteCommand, REMOTE_USAGE, runRemote } from "./remote-commands";
import { invocationDirectory, processEnvironment, startedByLauncher } from "./env";

/** Exit codes: scripts branch on them. */
export const EXIT = { ok: 0, usage: 1, badFile: 2, infeasible: 3 } as const;

export const USAGE = `Usage: npm run -s packrat -- optimize --profile FILE.csv --cores T --batch B [--exact-cores] [--tie-tolerance E] [--json]

  --profile FILE.csv   columns threads,batch,latency_ms (extra columns ignored)
  --cores T            cores available to the model (Σ threads ≤ T; with --exact-cores, = T)
  --batch B            samples per batch, any positive integer
  --tie-tolerance E    plans within L*·(1+E) count as tied; the simplest wins (default 0)
  --json               print the library's result as JSON

Exit codes: 0 plan, 1 bad arguments, 2 bad profile file (the message names the line), 3 infeasible.

${REMOTE_USAGE}`;

export interface CliIo {
  readFile(path: string): string;
  stdout(text: string): void;
  stderr(text: string): void;
  /** Where relative --profile paths start (npm run changes directory to the package root). */
  cwd: string;
}

/** The whole CLI as a function of its arguments, so tests can run it in-process too. */
export function runPackrat(argv: readonly string[], io: CliIo): number {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        profile: { type: "string" },
        cores: { type: "string" },
        batch: { type: "string" },
        "exact-cores": { type: "boolean", default: false },
        "tie-tolerance": { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  } catch (error) {
    io.stderr(`packrat: ${(error as Error).message}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(`${USAGE}\n`);
    return EXIT.ok;
  }
  if (positionals[0] !== "optimize" || positionals.length !== 1) {
    io.stderr(
      `packrat: expected the command "optimize" (or one over a control plane, below), got ${positionals.length === 0 ? "none" : positionals.join(" ")}\n\n${USAGE}\n`,
    );
    return EXIT.usage;
  }
  const missing = (["profile", "cores", "batch"] as const).filter((name) => values[name] === undefined);
  if (missing.length > 0) {
    io.stderr(`packrat: missing ${missing.map((name) => `--${name}`).join(", ")}\n\n${USAGE}\n`);
    return EXIT.usage;
  }
  const cores = integerArgument(values.cores ?? "");
  const batch = integerArgument(values.batch ?? "");
  const tieTolerance = values["tie-tolerance"] === undefined ? 0 : numberArgument(values["tie-tolerance"]);

  const file = values.profile ?? "";
  let cells;
  try {
    cells = parseProfileCsv(io.readFile(resolve(io.cwd, file)));
  } catch (error) {
    if (error instanceof ProfileCsvError) {
      io.stderr(`packrat: ${file}: ${error.message}\n`);
    } else {
      io.stderr(`packrat: cannot read ${file}: ${(error as Error).message}\n`);
    }
    return EXIT.badFile;
  }

  let result;
  try {
    result = optimize(cells, { cores, batch, exactCores: values["exact-cores"], tieTolerance });
  } catch (error) {
    if (error instanceof OptimizerInputError) {
      io.stderr(`packrat: --${flagName(error.parameter)}: ${error.message.replace(/^[^:]*: /, "")}\n`);
      return EXIT.usage;
    }
    if (error instanceof ProfileError) {
      io.stderr(`packrat: ${file}: ${error.message}\n`);
      return EXIT.badFile;
    }
    throw error;
  }

  if (values.json) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } else if (result.kind === "plan") {
    io.stdout(formatPlan(result, file));
  } else {
    io.stdout(`Infeasible: ${result.reason}\n`);
  }
  return result.kind === "plan" ? EXIT.ok : EXIT.infeasible;
}

/** "8" → 8; anything else → NaN, which the optimizer rejects with a typed error naming the flag. */
function integerArgument(text: string): number {
  return /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
}

function numberArgument(text: string): number {
  return /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text) ? Number(text) : NaN;
}

function flagName(parameter: string): string {
  return parameter === "tieTolerance" ? "tie-tolerance" : parameter === "exactCores" ? "exact-cores" : parameter;
}

/** The human-readable report: the plan as a table of ⟨i, t, b⟩, the prediction and both baselines. */
export function formatPlan(plan: OptimizedPlan, file: string): string {
  const mode = plan.exactCores ? "every core used (--exact-cores)" : "idle cores allowed";
  const instanceCount = plan.instances.reduce((sum, group) => sum + group.count, 0);
  const lines = [
    `Profile ${file}: T = ${plan.cores} cores, B = ${plan.batch}, ${mode}`,
    "",
    `Plan: ${instanceCount} instance${instanceCount === 1 ? "" : "s"}, ${plan.cores - plan.idleCores} threads, ${plan.idleCores} idle core${plan.idleCores === 1 ? "" : "s"}`,
    "  instances  threads  batch  latency (ms)",
    ...plan.instances.map(
      (group) =>
        `  ${pad(group.count, 9)}  ${pad(group.threads, 7)}  ${pad(group.batch, 5)}  ${pad(ms(group.latencyMs), 12)}`,
    ),
    `Predicted batch latency ${ms(plan.latencyMs)} ms, throughput ${rate(plan.throughputPerS)} samples/s`,
    "",
    "Baselines (same profile):",
    `  one instance, all ${plan.cores} threads:   ${baseline(plan.baselines.allThreads)}`,
    `  one-thread instances:            ${baseline(plan.baselines.oneThread)}`,
  ];
  return `${lines.join("\n")}\n`;
}

function baseline(result: BaselineResult): string {
  if (!result.available) {
    const cells = result.missing.map(([t, b]) => `t=${t} b=${b}`).join(", ");
    return `unavailable (profile lacks ${cells})`;
  }
  return `${shape(result.instances)}: ${ms(result.latencyMs)} ms, ${rate(result.throughputPerS)} samples/s; plan is ${result.speedup.toFixed(2)}× faster`;
}

function shape(groups: readonly PlanGroup[]): string {
  return groups.map((group) => `${group.count}×⟨t=${group.threads}, b=${group.batch}⟩`).join(" + ");
}

function ms(value: number): string {
  return value.toFixed(value < 10 ? 3 : 2);
}

function rate(value: number): string {
  return value.toFixed(1);
}

function pad(value: string | number, width: number): string {
  return String(value).padStart(width);
}

/** The CLI's entry: `optimize` on a CSV runs here, offline; every other command goes to the control plane. */
export async function main(argv: readonly string[]): Promise<number> {
  const io = {
    stdout: (text: string) => void process.stdout.write(text),
    stderr: (text: string) => void process.stderr.write(text),
    cwd: invocationDirectory(),
  };
  if (isRemoteCommand(argv)) return runRemote(argv, { ...io, env: processEnvironment() });
  return runPackrat(argv, { ...io, readFile: (path) => readFileSync(path, "utf8") });
}

// Run as a script (tsx src/cli/packrat.ts), or through bin/packrat.mjs, which sets PACKRAT_CLI_MAIN.
const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (invokedDirectly || startedByLauncher()) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
