// `npm run agent -- --model FILE.onnx --plan PLAN.json [--name NAME] [--port N] [--grpc-port N] [--host H]`
// Standalone mode: serve one model with a plan. SIGHUP applies the plan file again as a new generation, live;
// if the model file changed, that is a new version (active-passive). SIGTERM drains and exits.
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { hostname } from "node:os";
import { parseArgs } from "node:util";
import { servingPlanSchema } from "@packrat/contracts/serving-plan";
import { AgentEnvError, loadAgentEnv, processEnvironment, readTokenFile } from "./env";
import { ServingSupervisor } from "./serving-supervisor";
import { AttachedAgent } from "./attached/attached-agent";
import type { ServingConfig } from "./serving-config";

const log = (level: string, msg: string, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ time: new Date().toISOString(), level, component: "agent", msg, ...extra }));
const fail = (message: string): never => {
  console.error(`agent: ${message}`);
  process.exit(2);
};

function main(): void {
  let args;
  try {
    args = parseArgs({
      options: {
        model: { type: "string" },
        plan: { type: "string" },
        name: { type: "string" },
        version: { type: "string" },
        port: { type: "string" },
        "grpc-port": { type: "string" },
        host: { type: "string" },
        help: { type: "boolean" },
        "control-plane": { type: "string" },
        token: { type: "string" },
      },
    }).values;
  } catch (error) {
    return fail((error as Error).message);
  }
  if (args.help) {
    console.log(
      [
        "usage: AGENT_TOKEN=… npm run agent -- --control-plane URL [--port N] [--grpc-port N] [--host H]   (attached to a control plane;",
        "         --token TOKEN works too, but every user of the host can read a command line)",
        "       npm run agent -- --model FILE.onnx --plan PLAN.json [--name NAME] [--version V] [--port N] [--grpc-port N] [--host H]   (standalone)",
      ].join("\n"),
    );
    return;
  }
  if (args.token)
    log(
      "warn",
      "--token puts the agent token in this process's command line, which every user of the host can read; prefer AGENT_TOKEN in the environment",
    );
  const env = processEnvironment({
    ...(args.port ? { AGENT_PORT: args.port } : {}),
    ...(args["grpc-port"] ? { AGENT_GRPC_PORT: args["grpc-port"] } : {}),
    ...(args.host ? { AGENT_HOST: args.host } : {}),
    ...(args["control-plane"] ? { PACKRAT_CONTROL_PLANE_URL: args["control-plane"] } : {}),
    ...(args.token ? { AGENT_TOKEN: args.token } : {}),
  });
  let agentEnv;
  let fileToken: string | undefined;
  try {
    agentEnv = loadAgentEnv(env);
    if (agentEnv.AGENT_TOKEN_FILE) fileToken = readTokenFile(agentEnv.AGENT_TOKEN_FILE);
  } catch (error) {
    if (error instanceof AgentEnvError) return fail(error.message);
    throw error;
  }
  if (agentEnv.PACKRAT_CONTROL_PLANE_URL) {
    if (args.model || args.plan)
      return fail("--model/--plan are for standalone mode; with --control-plane the control plane says what to serve");
    const stateDir = resolve(agentEnv.AGENT_STATE_DIR);
    const attached = new AttachedAgent({
      controlPlaneUrl: agentEnv.PACKRAT_CONTROL_PLANE_URL,
      token: agentEnv.AGENT_TOKEN ?? fileToken ?? "",
      // Once its enrollment token is exchanged, the agent needs it no more: the file can go.
      ...(fileToken && agentEnv.AGENT_TOKEN_FILE_REMOVE_AFTER_ENROLL
        ? { removeAfterEnroll: agentEnv.AGENT_TOKEN_FILE }
        : {}),
      stateDir,
      cacheMaxBytes: agentEnv.AGENT_CACHE_MAX_BYTES,
      reconnectMinMs: agentEnv.RECONNECT_BACKOFF_MIN_MS,
      reconnectMaxMs: agentEnv.RECONNECT_BACKOFF_MAX_MS,
      metricsIntervalMs: agentEnv.METRICS_INTERVAL_MS,
      hostName: agentEnv.AGENT_HOST_NAME,
      inferenceUrl:
        agentEnv.AGENT_PUBLIC_URL ??
        `http://${agentEnv.AGENT_HOST === "0.0.0.0" ? hostname() : agentEnv.AGENT_HOST}:${agentEnv.AGENT_PORT}`,
      env,
      log,
    });
    if (!agentEnv.AGENT_TOKEN && !fileToken && !existsSync(join(stateDir, "agent-token")))
      return fail("AGENT_TOKEN_FILE, AGENT_TOKEN or --token is required the first time an agent attaches");
    let stopping = false;
    const shutdown = async () => {
      if (stopping) return;
      stopping = true;
      await attached.stop(agentEnv.AGENT_DRAIN_TIMEOUT_MS + 5_000);
      process.exit(0);
    };
    process.on("SIGTERM", () => void shutdown());
    process.on("SIGINT", () => void shutdown());
    attached.start().catch((error: Error) => {
      log("error", "agent stopped", { error: error.message });
      void attached.stop(0).then(() => process.exit(1));
    });
    return;
  }
  if (!args.model) return fail("--model FILE.onnx is required");
  if (!args.plan)
    return fail(
      '--plan PLAN.json is required (e.g. {"instances": [{"count": 2, "threads": 1, "batch": 4}], "batchTimeoutMs": 2})',
    );
  const modelPath = resolve(args.model);
  if (!existsSync(modelPath)) return fail(`model file not found: ${modelPath}`);
  let planJson: unknown;
  try {
    planJson = JSON.parse(readFileSync(resolve(args.plan), "utf8"));
  } catch (error) {
    return fail(`cannot read plan ${args.plan}: ${(error as Error).message}`);
  }
  const plan = servingPlanSchema.safeParse(planJson);
  if (!plan.success) {
    const issue = plan.error.issues[0]!;
    return fail(`plan ${args.plan}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const name = args.name ?? basename(modelPath).replace(/\.onnx$/i, "");
  const stateDir = resolve(agentEnv.AGENT_STATE_DIR);
  mkdirSync(join(stateDir, "models"), { recursive: true });
  // Serve a content-addressed copy: replacing --model's file and sending SIGHUP rolls out a new version.
  const snapshot = (): { path: string; sha: string } => {
    const bytes = readFileSync(modelPath);
    const sha = createHash("sha256").update(bytes).digest("hex");
    const path = join(stateDir, "models", `${sha}.onnx`);
    if (!existsSync(path)) copyFileSync(modelPath, path);
    return { path, sha };
  };
  let served = snapshot();
  let versionNumber = 1;
  const versionLabel = () => (args.version && versionNumber === 1 ? args.version : String(versionNumber));
  const config: ServingConfig = {
    generation: 1,
    models: [{ name, version: versionLabel(), modelPath: served.path, plan: plan.data }],
  };
  const configPath = join(stateDir, `serving-${process.pid}.json`);
  writeFileSync(configPath, JSON.stringify(config, null, 2));

  const supervisor = new ServingSupervisor({ configPath, env, log });
  supervisor.onGiveUp = () => process.exit(1);
  supervisor.onApplied = (result) =>
    log(result.outcome === "applied" ? "info" : "error", `generation ${result.generation} ${result.outcome}`, {
      error: result.error,
    });
  supervisor.start();

  // SIGHUP: re-read the plan file and apply it live as the next generation (Packrat §3.7).
  const planPath = resolve(args.plan);
  process.on("SIGHUP", () => {
    let next;
    try {
      next = servingPlanSchema.parse(JSON.parse(readFileSync(planPath, "utf8")));
    } catch (error) {
      log("error", "SIGHUP: plan not applied", { error: (error as Error).message.split("\n")[0] });
      return;
    }
    const current = snapshot();
    if (current.sha !== served.sha) {
      served = current;
      versionNumber += 1;
      config.models[0]!.modelPath = current.path;
      config.models[0]!.version = versionLabel();
    }
    config.generation += 1;
    config.models[0]!.plan = next;
    writeFileSync(configPath, JSON.stringify(config, null, 2)); // a restarted serving process resumes here
    log("info", `SIGHUP: applying generation ${config.generation}`);
    supervisor.apply(config);
  });
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await supervisor.stop(agentEnv.AGENT_DRAIN_TIMEOUT_MS + 5_000);
    process.exit(0);
  };
  process.on("SIGTERM", () => void shutdown());
  process.on("SIGINT", () => void shutdown());
}

main();
