// Runs a load-test job: the load generator's CLI in a child process against this agent's own port (so the
// generator's event loop never shares the agent's), then reads the JSON report it wrote. The report is also kept
// under the state directory (the newest few), so what was uploaded can be compared with what was measured.
import { spawn } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadgenReportSchema, type LoadgenReportJson, type LoadTestJobParams } from "@packrat/contracts/agent-jobs";
import { tsExecArgv } from "../ts-exec-argv";
import { expectedDurationS, loadgenArgs } from "./load-test-args";
import { processEnvironment } from "../env";

const KEEP_REPORTS = 20;
const LOADGEN_CLI = fileURLToPath(new URL("../../../loadgen/src/cli.ts", import.meta.url));

export interface LoadTestRunOptions {
  /** This agent's inference URL on loopback (or its bind address). */
  agentUrl: string;
  /** AGENT_INFER_TOKEN when inference needs one. */
  inferToken?: string;
  stateDir: string;
}

/** Where a load test's report is kept on the agent. */
export function loadTestReportPath(stateDir: string, loadTestId: string): string {
  return join(stateDir, "load-tests", `${loadTestId.replace(/[^A-Za-z0-9_-]/g, "_")}.json`);
}

async function modelInputs(url: string, model: string, token: string | undefined) {
  const response = await fetch(`${url}/v2/models/${encodeURIComponent(model)}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
  });
  if (response.status !== 200)
    throw new Error(`the agent does not serve model ${model} (GET /v2/models/${model}: ${response.status})`);
  const meta = (await response.json()) as { inputs?: Array<{ name: string; shape: number[] }> };
  if (!Array.isArray(meta.inputs)) throw new Error(`model ${model}: metadata without inputs`);
  return meta.inputs;
}

function pruneReports(dir: string): void {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .map((f) => ({ f, t: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t);
  for (const { f } of files.slice(KEEP_REPORTS)) rmSync(join(dir, f), { force: true });
}

export async function runLoadTest(params: LoadTestJobParams, options: LoadTestRunOptions): Promise<LoadgenReportJson> {
  const inputs = await modelInputs(options.agentUrl, params.modelName, options.inferToken);
  const out = loadTestReportPath(options.stateDir, params.loadTestId);
  mkdirSync(join(options.stateDir, "load-tests"), { recursive: true });
  rmSync(out, { force: true });
  const args = loadgenArgs(params, { url: options.agentUrl, out, inputs });
  // The run's own length plus start-up and the last requests' deadline; past that the generator is stuck.
  const limitMs = (expectedDurationS(params.spec) + 120) * 1000;
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...tsExecArgv(), LOADGEN_CLI, ...args], {
      env: processEnvironment(options.inferToken ? { LOADGEN_TOKEN: options.inferToken } : {}),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let text = "";
    const keep = (d: Buffer) => {
      text = (text + d.toString()).slice(-4000);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(text);
      else
        reject(
          new Error(
            `the load generator ${signal ? `was killed (${signal}) after ${limitMs / 1000} s` : `exited with ${code}`}: ${text.trim().split("\n").slice(-3).join(" | ")}`,
          ),
        );
    });
  });
  let report: unknown;
  try {
    report = JSON.parse(readFileSync(out, "utf8"));
  } catch (error) {
    throw new Error(
      `the load generator wrote no readable report (${(error as Error).message}); its output: ${output.trim().split("\n").slice(-3).join(" | ")}`,
    );
  }
  pruneReports(join(options.stateDir, "load-tests"));
  // The upload's contract, checked here: a report the control plane would refuse fails the job with the reason.
  const parsed = loadgenReportSchema.safeParse(report);
  if (!parsed.success)
    throw new Error(
      `the load generator's report does not match packrat-loadgen/1: ${parsed.error.issues[0]!.path.join(".") || "report"}: ${parsed.error.issues[0]!.message}`,
    );
  return parsed.data;
}
